// Reading goose's `sessions.db` incrementally. Tokens come from `usage_ledger` (schema 15+), one
// row per model call with its model and cost, compactions marked, read by an exact cursor (ids
// only grow); a session with no ledger row (older goose) counts the growth of its `accumulated_*`
// running totals instead, never both. goose's input counts include cache reads and writes. The
// unprefixed token columns are the last call's: the context in use. `messages` (ids only grow)
// hold prompts, answers, tool calls and their results as content blocks. A subagent's session
// (`session_type = 'sub_agent'`, `parent_session_id`) counts its tokens and tools for its parent.

import { jsonObject, jsonValue, obj, str, type Json } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { columnsOf, cursorMs, requireColumns, rowsById, secondsToMs, selectList, type Db } from '../sqlite.js';
import { chainFinder, targetFinder, type Target } from '../chain.js';
import { usageFromPrompt } from '../../session/types.js';
import { countGrowth, dollars, skipTotals, tokenCounts, type Marks } from '../cumulative.js';
import { classifyTool } from './tools.js';

export interface GooseState {
  sig?: string;
  /** The last `messages` and `usage_ledger` rows read. */
  message: number;
  ledger: number;
  /** Session rows updated at or after this time (Unix seconds) are read again. */
  since: number;
  /** Running totals counted, per session without ledger rows. */
  marks: Marks;
  /**
   * Sessions (by root) whose turn is open, or whose last answer ended it. Kept beside the store's:
   * a read that failed midway is read again, so a turn's end and reopening are deduplicated per
   * message, and this state spends those keys on the answers that end or reopen one, not on all.
   */
  turn: Record<string, 'open' | 'answered'>;
  /** Per session, the second of its latest compaction: the summary goose writes then is no prompt. */
  compacted: Record<string, number>;
  /** Sessions with ledger rows: their tokens count from those only. */
  ledgered: Record<string, true>;
}

// goose's default context limit when the model config has none.
const DEFAULT_CONTEXT_LIMIT = 128_000;
const OVERLAP_S = 120;

const SESSION_COLUMNS = [
  'id',
  'session_type',
  'parent_session_id',
  'working_dir',
  'updated_at',
  'model_config_json',
  'total_tokens',
  'accumulated_input_tokens',
  'accumulated_output_tokens',
  'accumulated_cache_read_tokens',
  'accumulated_cache_write_tokens',
  'accumulated_cost',
] as const;
type SessionRow = Record<(typeof SESSION_COLUMNS)[number], unknown> & { id: string };

/** `created_timestamp`: Unix seconds (milliseconds in some rows). */
const stamp = (v: unknown): number | undefined => secondsToMs(typeof v === 'number' && v > 1e10 ? v / 1000 : v);
/** `YYYY-MM-DD HH:MM:SS`, UTC. */
const utc = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(`${v.replace(' ', 'T')}Z`) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
};

export function readGoose(db: Db, state: GooseState, eventsOf: (id: string) => SessionEvents): void {
  const sessionCols = requireColumns(db, 'sessions', [
    'id',
    'working_dir',
    'updated_at',
    'accumulated_input_tokens',
    'accumulated_output_tokens',
  ]);
  const messageCols = requireColumns(db, 'messages', ['id', 'session_id', 'role', 'content_json', 'created_timestamp']);
  const ledgerCols = columnsOf(db, 'usage_ledger');
  const ledger = ledgerCols.has('session_id') && ledgerCols.has('input_tokens');
  const select = `SELECT ${selectList(sessionCols, SESSION_COLUMNS)} FROM sessions`;
  const rows = rowsById<SessionRow>(db, `${select} WHERE id = ?`);
  const rowOf = rows.get;
  const chainOf = chainFinder((id) => {
    const row = rowOf(id);
    const parent = row?.session_type === 'sub_agent' ? str(row.parent_session_id) : undefined;
    return parent && rowOf(parent) ? { parent, subagent: true } : undefined;
  });
  const targetOf = targetFinder(chainOf, eventsOf, (root) => str(rowOf(root)?.working_dir));

  // The ledger first: it tells which sessions' running totals are not to be counted.
  const ledgerFrom = state.ledger;
  if (ledger) {
    const calls = db
      .prepare(
        `SELECT ${selectList(ledgerCols, [
          'id',
          'session_id',
          'created_timestamp',
          'model',
          'input_tokens',
          'output_tokens',
          'cache_read_tokens',
          'cache_write_tokens',
          'cost',
          'is_compaction',
        ])} FROM usage_ledger WHERE id > ? ORDER BY id`,
      )
      .all(state.ledger) as Json[];
    for (const c of calls) {
      state.ledger = Math.max(state.ledger, c.id as number);
      const session = str(c.session_id);
      if (!session || !rowOf(session)) continue;
      state.ledgered[session] = true;
      readCall(c, session, targetOf(session), state);
    }
  }
  const fromLedger = ledger ? ' UNION SELECT session_id FROM usage_ledger WHERE id > ?' : '';
  const changed = db
    .prepare(
      `${select} WHERE CAST(strftime('%s', updated_at) AS INTEGER) >= ?
    OR id IN (SELECT session_id FROM messages WHERE id > ?${fromLedger})`,
    )
    .all(state.since - OVERLAP_S, state.message, ...(ledger ? [ledgerFrom] : [])) as SessionRow[];
  for (const row of changed) {
    rows.set(row.id, row);
    const updated = utc(row.updated_at);
    if (updated) state.since = Math.max(state.since, Math.floor(cursorMs(updated) / 1000));
    readSessionRow(row, targetOf(row.id), state, state.ledgered[row.id] === true);
  }

  const messages = db
    .prepare(
      `SELECT ${selectList(messageCols, ['id', 'session_id', 'role', 'content_json', 'created_timestamp', 'metadata_json'])}
    FROM messages WHERE id > ? ORDER BY id`,
    )
    .all(state.message) as Json[];
  for (const m of messages) {
    state.message = Math.max(state.message, m.id as number);
    const session = str(m.session_id);
    if (session && rowOf(session)) readMessage(m, session, targetOf(session), state);
  }
}

function modelOf(row: SessionRow | undefined): { model?: string; limit: number } {
  const config = jsonObject(str(row?.model_config_json) ?? '') ?? {};
  const limit = config.context_limit;
  return {
    model: str(config.model_name),
    limit: typeof limit === 'number' && limit > 0 ? limit : DEFAULT_CONTEXT_LIMIT,
  };
}

function readSessionRow(row: SessionRow, t: Target, state: GooseState, ledgered: boolean): void {
  const ev = t.events;
  const updated = utc(row.updated_at);
  if (updated) ev.activity(updated);
  const { model, limit } = modelOf(row);
  if (!t.child && model) {
    ev.meta({ model });
    // The last call's prompt and answer: what the context holds now.
    if (typeof row.total_tokens === 'number' && row.total_tokens > 0) ev.context(model, row.total_tokens, limit);
  }
  if (ledgered) return;
  const tokens = tokenCounts([
    row.accumulated_input_tokens,
    row.accumulated_output_tokens,
    row.accumulated_cache_read_tokens,
    row.accumulated_cache_write_tokens,
  ]);
  const cost = dollars(row.accumulated_cost);
  if (!tokens || Number.isNaN(cost))
    return skipTotals(ev, row.id, [
      row.accumulated_input_tokens,
      row.accumulated_output_tokens,
      row.accumulated_cache_read_tokens,
      row.accumulated_cache_write_tokens,
      row.accumulated_cost,
    ]);
  const [input, output, cacheRead, cacheWrite] = tokens as [number, number, number, number];
  countGrowth(
    ev,
    state.marks,
    row.id,
    model ?? 'unknown',
    usageFromPrompt(input, output, cacheRead, cacheWrite, 0),
    cost,
    updated ?? 0,
  );
}

function readCall(c: Json, session: string, t: Target, state: GooseState): void {
  const ev = t.events;
  const ts = stamp(c.created_timestamp);
  const tokens = tokenCounts([c.input_tokens, c.output_tokens, c.cache_read_tokens, c.cache_write_tokens]);
  const cost = dollars(c.cost);
  if (ts === undefined || !tokens || Number.isNaN(cost)) return ev.skipped('implausible_value');
  ev.activity(ts);
  const [input, output, cacheRead, cacheWrite] = tokens as [number, number, number, number];
  const u = usageFromPrompt(input, output, cacheRead, cacheWrite, 0);
  if (c.is_compaction === 1) state.compacted[session] = Math.floor(ts / 1000);
  if (!ev.firstTime(`call:${session}:${String(c.id)}`)) return;
  ev.usage(str(c.model) ?? 'unknown', u, input, ts, cost !== undefined && cost > 0 ? cost : undefined);
  if (c.is_compaction === 1) ev.compaction();
}

function readMessage(m: Json, session: string, t: Target, state: GooseState): void {
  const ev = t.events;
  const ts = stamp(m.created_timestamp);
  const blocks = jsonValue(str(m.content_json) ?? '');
  if (ts === undefined || !Array.isArray(blocks)) return ev.skipped('parse_error');
  ev.activity(ts);
  const content = blocks.map(obj).filter((b): b is Json => b !== undefined);
  if (m.role === 'user') return readUser(content, m, session, ts, t, state);
  if (m.role !== 'assistant') return;
  let asks = false;
  for (const b of content) {
    if (b.type === 'toolRequest' || b.type === 'frontendToolRequest') {
      const id = str(b.id);
      const name = str(obj(obj(b.toolCall)?.value)?.name);
      if (!id) {
        ev.skipped('unknown_shape');
        continue;
      }
      if (ev.firstTime(`tool:${id}`)) ev.toolCall(id, classifyTool(name ?? ''));
      asks = true;
    } else if (
      b.type === 'toolConfirmationRequest' ||
      (b.type === 'actionRequired' && obj(b.data)?.actionType === 'toolConfirmation')
    ) {
      // The call written before waits for the person's permission now.
      const data = b.type === 'actionRequired' ? obj(b.data)! : b;
      const id = str(data.id);
      if (id && ev.firstTime(`approval:${id}`))
        ev.toolCall(id, { ...classifyTool(str(data.toolName) ?? ''), waits: 'approval' });
      asks = true;
    }
  }
  if (t.child) return;
  const turn = state.turn[t.root];
  const key = `${session}:${String(m.id)}`;
  if (asks) {
    // An answer that looked final was followed by tool calls: the turn goes on.
    if (turn === 'answered' && ev.firstTime(`reopen:${key}`)) ev.turnReopened();
    state.turn[t.root] = 'open';
  } else if (turn === 'open') {
    if (ev.firstTime(`end:${key}`)) ev.turnEnded('completed', ts);
    state.turn[t.root] = 'answered';
  }
}

function readUser(content: Json[], m: Json, session: string, ts: number, t: Target, state: GooseState): void {
  const ev = t.events;
  for (const b of content) {
    if (b.type !== 'toolResponse') continue;
    const id = str(b.id);
    const result = obj(b.toolResult);
    if (id && ev.firstTime(`result:${id}`))
      ev.toolResult(id, result?.status === 'error' || obj(result?.value)?.isError === true);
  }
  if (t.child || !content.some((b) => b.type === 'text')) return;
  // Messages only the agent sees (summaries, injected context) are not typed; nor is the summary
  // goose writes with a compaction.
  if (jsonObject(str(m.metadata_json) ?? '')?.userVisible === false) return;
  if (state.compacted[session] === Math.floor(ts / 1000)) return;
  const key = `${session}:${String(m.id)}`;
  if (state.turn[t.root] === 'open' && ev.firstTime(`interrupted:${key}`)) ev.turnEnded('interrupted', ts);
  if (ev.firstTime(`prompt:${key}`)) {
    ev.turnStarted(ts);
    ev.prompt(ts);
  }
  state.turn[t.root] = 'open';
}
