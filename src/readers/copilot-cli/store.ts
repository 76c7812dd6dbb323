// Copilot CLI's `session-store.db`: `assistant_usage_events` holds one row per model call, written as
// the call ends, with every token type (`input_tokens` includes cache reads and writes). Read from
// the last row id read; each call is counted unless the session's events.jsonl counted it first
// (calls.ts). Its `total_nano_aiu` (AI units) is no dollar amount: the list price applies, as for
// the event logs.

import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { SessionEvents } from '../../session/events.js';
import { addUsage, usageFromPrompt, ZERO_USAGE, type Usage } from '../../session/types.js';
import { skipTotals, tokenCounts } from '../cumulative.js';
import { str, time } from '../fields.js';
import {
  columnsOf,
  readChangedDatabase,
  readDatabase,
  requireColumns,
  rowsById,
  selectList,
  storeChanged,
  type Db,
} from '../sqlite.js';
import { callKey, nthTime, outputKey } from './calls.js';
import { STORE } from './paths.js';

/** Where the store was read to. */
export interface StoreCursor {
  sig?: string;
  /** The last row id read. */
  after: number;
  /** What that row says: a store rebuilt from the logs numbers its rows anew. */
  last?: string;
}

const COUNTS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
const COLUMNS = ['id', 'session_id', 'model', ...COUNTS, 'created_at', 'initiator', 'agent_id'] as const;
type Row = Record<(typeof COLUMNS)[number], unknown>;

/** `created_at`: SQLite's `datetime('now')` (UTC, no zone) in schema 8 stores, ISO-8601 in newer ones. */
function createdAt(v: unknown): number | undefined {
  const text = str(v);
  return time(text && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(text) ? `${text.replace(' ', 'T')}Z` : text);
}

/** What a row says, to know it again. */
const rowMark = (row: Row): string => COLUMNS.map((c) => String(row[c])).join(' ');

/** The store's new rows, each call reported to its session's events unless counted already. */
export function readStoreFile(
  path: string,
  cursor: StoreCursor,
  eventsOf: (session: string) => SessionEvents,
): boolean {
  return readChangedDatabase(path, cursor, (db) => readRows(db, cursor, eventsOf));
}

function readRows(db: Db, cursor: StoreCursor, eventsOf: (session: string) => SessionEvents): void {
  // Stores of CLIs older than per-call rows have no such table: nothing to read.
  if (columnsOf(db, 'assistant_usage_events').size === 0) return;
  const have = requireColumns(db, 'assistant_usage_events', ['id', 'session_id', 'model', ...COUNTS]);
  // A store rebuilt from the session logs numbers its rows anew: where the last row read is not
  // what it was, the store is read from its start, and every call counted before is known by its key.
  const at =
    cursor.after > 0
      ? db.prepare(`SELECT ${selectList(have, COLUMNS)} FROM assistant_usage_events WHERE id = ?`).get(cursor.after)
      : undefined;
  const after = at && rowMark(at as Row) === cursor.last ? cursor.after : 0;
  cursor.after = after;
  const rows = db
    .prepare(`SELECT ${selectList(have, COLUMNS)} FROM assistant_usage_events WHERE id > ? ORDER BY id`)
    .all(after) as Row[];
  if (rows.length === 0) return;

  // Which of its session's calls saying the same a row is: counted in this read, from the rows
  // before the cursor (one indexed count, once per what is said) where the store was read before.
  const same = db
    .prepare(
      `SELECT COUNT(*) FROM assistant_usage_events WHERE session_id = ? AND model = ?
    AND ${COUNTS.map((c) => `IFNULL(${c}, 0) = ?`).join(' AND ')} AND id <= ?`,
    )
    .pluck();
  const sameOutput = db
    .prepare(
      'SELECT COUNT(*) FROM assistant_usage_events WHERE session_id = ? AND model = ? AND IFNULL(output_tokens, 0) = ? AND id <= ?',
    )
    .pluck();
  const seen: Record<string, number> = {};
  const nth = (what: string, before: () => unknown) => {
    if (seen[what] === undefined) seen[what] = after > 0 ? Number(before()) : 0;
    return nthTime(seen, what);
  };
  const sessionCols = columnsOf(db, 'sessions');
  const sessionRow = sessionCols.has('id')
    ? rowsById<Record<string, unknown>>(
        db,
        `SELECT ${selectList(sessionCols, ['cwd', 'branch'])} FROM sessions WHERE id = ?`,
      )
    : undefined;

  for (const row of rows) {
    if (typeof row.id === 'number' && row.id > cursor.after) {
      cursor.after = row.id;
      cursor.last = rowMark(row);
    }
    const session = str(row.session_id);
    if (!session) continue;
    const ev = eventsOf(session);
    const model = str(row.model);
    if (!model) {
      ev.skipped('unknown_shape');
      continue;
    }
    const meta = sessionRow?.get(session);
    ev.meta({ cwd: str(meta?.cwd), gitBranch: str(meta?.branch) });
    const ts = createdAt(row.created_at) ?? Date.now();
    ev.activity(ts);
    const values = COUNTS.map((c) => row[c]);
    const counts = tokenCounts(values);
    if (!counts) {
      skipTotals(ev, `row:${String(row.id)}`, values);
      continue;
    }
    const [prompt, output, cacheRead, cacheWrite, reasoning] = counts as [number, number, number, number, number];
    const k = nth(`${session} ${model} ${counts.join(',')}`, () => same.get(session, model, ...counts, after));
    const j =
      output > 0 ? nth(`${session} ${model} ${output}`, () => sameOutput.get(session, model, output, after)) : 0;
    // The main agent's calls name the model in use (a compaction's or a subagent's may not).
    if (row.initiator !== 'compaction' && row.initiator !== 'sub-agent' && !str(row.agent_id)) ev.meta({ model });
    if (!ev.firstTime(callKey(session, model, counts, k))) continue;
    // An older CLI's message counted the call's output already; its other tokens are counted here.
    const fresh = output === 0 || ev.firstTime(outputKey(session, model, output, j));
    const u = usageFromPrompt(prompt, fresh ? output : 0, cacheRead, cacheWrite, reasoning);
    if (u.input + u.output + u.cacheRead + u.cacheWrite + u.reasoning > 0) ev.usage(model, u, prompt, ts);
  }
}

/** Sums of calls per session and model, in the metric contract's semantics. */
type Totals = Map<string, Record<string, Usage>>;

function sumRows(rows: Row[]): Totals {
  const totals: Totals = new Map();
  for (const row of rows) {
    const counts = tokenCounts(COUNTS.map((c) => row[c]));
    const session = str(row.session_id);
    const model = str(row.model);
    if (!counts || !session || !model) continue;
    const [prompt, output, cacheRead, cacheWrite, reasoning] = counts as [number, number, number, number, number];
    const of = totals.get(session) ?? {};
    totals.set(session, of);
    of[model] = addUsage(of[model] ?? ZERO_USAGE, usageFromPrompt(prompt, output, cacheRead, cacheWrite, reasoning));
  }
  return totals;
}

/**
 * The store last asked for a session's sums, as it was then, and once it was asked again as it was,
 * every session's: the exporter's first scan reads many runs' ends, which one read then serves.
 */
let asked: { path: string; signature: string; all?: Totals } | undefined;

/**
 * What the store beside an event log holds of its session, per model, in the metric contract's
 * semantics: none where there is no store; undefined where it cannot be read now (its rows are
 * counted once it can be).
 */
export function storeTotals(logPath: string, session: string): Record<string, Usage> | undefined {
  const at = logPath.lastIndexOf(`${sep}session-state${sep}`);
  const path = at < 0 ? undefined : join(logPath.slice(0, at), STORE);
  if (!path || !existsSync(path)) return {};
  const before = asked?.path === path ? asked : undefined;
  const { changed, signature } = storeChanged(path, before?.signature);
  if (!signature) return {};
  if (!changed && before?.all) return before.all.get(session) ?? {};
  try {
    return readDatabase(path, (db) => {
      if (!columnsOf(db, 'assistant_usage_events').has('session_id')) return {};
      const select = `SELECT session_id, model, ${COUNTS.join(', ')} FROM assistant_usage_events`;
      // Asked again of the store as it was (and settled): every session's sums, kept.
      if (!changed) {
        const all = sumRows(db.prepare(select).all() as Row[]);
        asked = { path, signature, all };
        return all.get(session) ?? {};
      }
      asked = { path, signature };
      return sumRows(db.prepare(`${select} WHERE session_id = ?`).all(session) as Row[]).get(session) ?? {};
    });
  } catch {
    return undefined;
  }
}
