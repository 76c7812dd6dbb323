// Reading one Hermes `state.db` incrementally. A `sessions` row holds running token and cost
// totals of one segment of a conversation; `messages` rows (AUTOINCREMENT ids, so an exact
// cursor) hold the prompts, answers and tool calls. A compression ends a row and continues in a
// child row (`parent_session_id`): one conversation, reported under its first row's id, its totals
// summed over the chain. A subagent's row (`source = 'subagent'`, or `_delegate_from` in its
// `model_config`) counts its tokens and tools for the conversation that delegated to it, not its
// turns or prompts. Branches and resets are conversations of their own.

import { jsonObject, jsonValue, obj, str } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { cursorSeconds, requireColumns, rowsById, secondsToMs, selectList, type Db } from '../sqlite.js';
import { chainFinder, targetFinder, type Target } from '../chain.js';
import type { TurnOutcome } from '../../session/types.js';
import { countGrowth, dollars, skipTotals, tokenCounts, type Marks } from '../cumulative.js';
import { classifyTool } from './tools.js';

export interface HermesState {
  /** The store's signature at the last read (see storeChanged). */
  sig?: string;
  /** The last `messages` row read. */
  message: number;
  /** Session rows active at or after this time (Unix seconds) are read again. */
  since: number;
  /** Token and cost totals counted, per session row. */
  marks: Marks;
}

// Session rows are read again this far back: the CLI's background writer adds a turn's tokens a
// few seconds after its messages.
const OVERLAP_S = 120;

const SESSION_COLUMNS = [
  'id',
  'source',
  'model',
  'model_config',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cwd',
  'git_branch',
  'estimated_cost_usd',
  'actual_cost_usd',
  'last_activity_at',
  'last_read_at',
] as const;
const MESSAGE_COLUMNS = [
  'id',
  'session_id',
  'role',
  'tool_calls',
  'tool_call_id',
  'timestamp',
  'finish_reason',
  '_compressed_summary',
  'display_kind',
] as const;

type SessionRow = Record<(typeof SESSION_COLUMNS)[number], unknown> & { id: string };
type MessageRow = Record<(typeof MESSAGE_COLUMNS)[number], unknown> & { id: number; session_id: string };

const FAILED = new Set(['error', 'agent_error', 'content_filter']);

/** How a row continues its parent: a compression's continuation, or a subagent it delegated to. */
function linkOf(row: SessionRow, parent: SessionRow | undefined): 'continues' | 'subagent' | undefined {
  if (!parent) return undefined;
  if (row.source === 'subagent' || str(jsonObject(str(row.model_config) ?? '')?._delegate_from)) return 'subagent';
  return parent.end_reason === 'compression' ? 'continues' : undefined;
}

export function readHermes(db: Db, state: HermesState, eventsOf: (id: string) => SessionEvents): void {
  const sessionCols = requireColumns(db, 'sessions', ['id', 'started_at', 'input_tokens', 'output_tokens']);
  const messageCols = requireColumns(db, 'messages', ['id', 'session_id', 'role', 'timestamp']);
  const select = `SELECT ${selectList(sessionCols, SESSION_COLUMNS)} FROM sessions`;
  const rows = rowsById<SessionRow>(db, `${select} WHERE id = ?`);
  const rowOf = rows.get;

  // A row's records are reported under the conversation's first row; compression chains can be
  // long, so they are followed further than other harnesses' chains.
  const chainOf = chainFinder((id) => {
    const row = rowOf(id);
    const parent = str(row?.parent_session_id);
    const link = row && parent ? linkOf(row, rowOf(parent)) : undefined;
    return link ? { parent: parent!, subagent: link === 'subagent' } : undefined;
  }, 32);
  const targetOf = targetFinder(chainOf, eventsOf, (root) => str(rowOf(root)?.cwd));

  const times = ['last_activity_at', 'ended_at', 'started_at']
    .filter((c) => sessionCols.has(c))
    .map((c) => `COALESCE(${c}, 0)`);
  const changed = db
    .prepare(
      `${select} WHERE MAX(${times.join(', ')}, 0) >= ? OR id IN (SELECT DISTINCT session_id FROM messages WHERE id > ?)`,
    )
    .all(state.since - OVERLAP_S, state.message) as SessionRow[];
  let newest = state.since;
  for (const row of changed) {
    rows.set(row.id, row);
    newest = Math.max(newest, ...[row.last_activity_at, row.ended_at, row.started_at].map((v) => cursorSeconds(v)));
    readSessionRow(row, targetOf(row.id), rowOf, state, sessionCols.has('last_read_at'));
  }

  const messages = db
    .prepare(`SELECT ${selectList(messageCols, MESSAGE_COLUMNS)} FROM messages WHERE id > ? ORDER BY id`)
    .all(state.message) as MessageRow[];
  for (const m of messages) {
    state.message = Math.max(state.message, m.id);
    if (!rowOf(m.session_id)) continue; // its session row was deleted
    readMessage(m, targetOf(m.session_id));
  }
  state.since = newest;
}

function readSessionRow(
  row: SessionRow,
  t: Target,
  rowOf: (id: string) => SessionRow | undefined,
  state: HermesState,
  hasReadMarker: boolean,
): void {
  const ev = t.events;
  const started = secondsToMs(row.started_at);
  // A session row is read again while it changes: counted as skipped once per version of it.
  if (started === undefined) {
    if (ev.firstTime(`bad-start:${row.id}:${String(row.started_at)}`)) ev.skipped('unknown_shape');
    return;
  }
  ev.activity(started);
  const last = secondsToMs(row.last_activity_at) ?? secondsToMs(row.ended_at);
  if (last) ev.activity(last);
  const model = str(row.model) ?? 'unknown';
  if (!t.child) {
    ev.meta({ model, ...(str(row.git_branch) ? { gitBranch: str(row.git_branch) } : {}) });
    // Hermes marks when the person last read a conversation; never read is read at its start.
    if (hasReadMarker) ev.viewed(secondsToMs(row.last_read_at) ?? started);
  }
  const parentId = str(row.parent_session_id);
  if (parentId && linkOf(row, rowOf(parentId)) === 'continues' && ev.firstTime(`compaction:${row.id}`)) ev.compaction();

  const tokens = tokenCounts([
    row.input_tokens,
    row.output_tokens,
    row.cache_read_tokens,
    row.cache_write_tokens,
    row.reasoning_tokens,
  ]);
  // The provider's reported cost wins over Hermes's estimate where it has one.
  const cost = dollars(row.actual_cost_usd) ?? dollars(row.estimated_cost_usd);
  if (!tokens || Number.isNaN(cost)) {
    return skipTotals(ev, row.id, [
      row.input_tokens,
      row.output_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
      row.reasoning_tokens,
      row.actual_cost_usd,
      row.estimated_cost_usd,
    ]);
  }
  const [input, output, cacheRead, cacheWrite, reasoning] = tokens as [number, number, number, number, number];
  // Hermes's input already leaves out cache reads and writes; its output includes reasoning.
  countGrowth(
    ev,
    state.marks,
    row.id,
    model,
    { input, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning },
    cost,
    last ?? started,
  );
}

function readMessage(m: MessageRow, t: Target): void {
  const ev = t.events;
  const ts = secondsToMs(m.timestamp);
  if (ts === undefined) return ev.skipped('unknown_shape');
  ev.activity(ts);
  switch (m.role) {
    case 'user': {
      // A compression's summary and hidden rows are not typed; a subagent's goal is its parent's call.
      if (m._compressed_summary === 1 || m.display_kind === 'hidden' || t.child) return;
      // Message ids are per database (a profile's): keys name the session too.
      const key = `${m.session_id}:${m.id}`;
      if (ev.firstTime(`prompt:${key}`)) {
        // A prompt while the last turn is still open: that turn was given up.
        ev.turnStarted(ts, 'interrupted');
        ev.prompt(ts);
      }
      return;
    }
    case 'assistant': {
      readToolCalls(ev, m.tool_calls);
      const finish = str(m.finish_reason);
      if (t.child || !finish || finish === 'tool_calls') return;
      const outcome: TurnOutcome = FAILED.has(finish) ? 'failed' : 'completed';
      if (ev.firstTime(`end:${m.session_id}:${m.id}`)) ev.turnEnded(outcome, ts);
      return;
    }
    case 'tool': {
      const id = str(m.tool_call_id);
      // Hermes records no error of a call: its result is free text.
      if (id && ev.firstTime(`result:${id}`)) ev.toolResult(id, false);
      return;
    }
    default:
  }
}

/** `[{id, type: "function", function: {name, arguments}}]` of an assistant row. */
function readToolCalls(ev: SessionEvents, text: unknown): void {
  if (typeof text !== 'string' || text === '') return;
  const calls = jsonValue(text);
  if (!Array.isArray(calls)) return ev.skipped('parse_error');
  for (const c of calls) {
    const id = str(obj(c)?.id);
    const name = str(obj(obj(c)?.function)?.name);
    if (!id || !name) {
      ev.skipped('unknown_shape');
      continue;
    }
    if (ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
  }
}
