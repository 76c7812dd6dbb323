// Copilot Chat's OTel spans, `globalStorage/github.copilot-chat/agent-traces.db` (opt-in: the
// setting `github.copilot.chat.otel.dbSpanExporter.enabled`): a `spans` row per model call
// (`operation_name` 'chat') with its tokens, the chat session and the turn (the request's index)
// it was made for. `input_tokens` includes the cache: the uncached input is what is left after
// `cached_tokens` and the cache writes (the `gen_ai.usage.cache_creation.input_tokens` attribute,
// which older builds never write: a database where no call has it records no cache writes). The
// writer leaves out a cache read or reasoning count of 0. `invoke_agent` rows repeat their calls'
// sums and are not read. Copilot deletes spans after 7 days (and all but the 100 newest
// sessions): each call counts once by its span id, as it is read, and a deleted one stays counted.
//
// A turn's tokens come from one place: these calls where the database has any of them, else the
// journal's output count. Whichever reads the turn first (the chat session and turn index, the
// key `tokens:<session>:<turn>`) counts it; the database is listed first, so that on a cold start
// it has every turn it holds. A span of a session whose journal is not in this user folder (a
// Copilot CLI session bridged into the editor, counted by the `copilot-cli` reader) is not read.

import type { SessionEvents } from '../../session/events.js';
import type { Usage, UsagePart } from '../../session/types.js';
import { numberOf, str } from '../fields.js';
import { columnsOf, cursorMs, requireColumns, selectList, type Db } from '../sqlite.js';
import { cwdOf } from './paths.js';

export interface TracesState {
  sig?: string;
  /** Spans that ended at or after this (ms), less OVERLAP_MS, are read again. */
  since: number;
  /** The turns whose tokens are the database's (`<session>:<turn>`), with their last call's end. */
  turns: Record<string, number>;
  /** A call with a cache write count was seen: calls without one wrote none. */
  cacheWrites?: true;
}

// Spans are exported in batches, not in the order they ended; and a span whose session's journal
// was not there yet is looked at again this long.
const OVERLAP_MS = 3600_000;
// A turn's ownership is kept a day longer than Copilot keeps its spans.
const KEEP_TURNS_MS = 8 * 86400_000;
const CACHE_WRITE = 'gen_ai.usage.cache_creation.input_tokens';
const NO_CACHE_WRITES: readonly UsagePart[] = ['cache_write'];
const COLUMNS = [
  'span_id',
  'chat_session_id',
  'turn_index',
  'request_model',
  'response_model',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'end_time_ms',
] as const;
type Row = Record<(typeof COLUMNS)[number], unknown>;

export const initialTraces = (): TracesState => ({ since: 0, turns: {} });

/** `journals`: the journal of each session this user folder holds, by its id. */
export function readTraces(
  db: Db,
  state: TracesState,
  journals: Map<string, string>,
  eventsOf: (id: string) => SessionEvents,
): void {
  const cols = requireColumns(db, 'spans', [
    'span_id',
    'operation_name',
    'chat_session_id',
    'input_tokens',
    'output_tokens',
    'end_time_ms',
  ]);
  const rows = db
    .prepare(
      `SELECT ${selectList(cols, COLUMNS)} FROM spans WHERE operation_name = 'chat' AND end_time_ms >= ? ORDER BY end_time_ms, rowid`,
    )
    .all(state.since - OVERLAP_MS) as Row[];
  const attribute = columnsOf(db, 'span_attributes').has('value')
    ? db.prepare('SELECT value FROM span_attributes WHERE span_id = ? AND key = ?').pluck()
    : undefined;
  let newest = state.since;
  // The calls not read before (the overlap's are passed over at once), and whether any has a cache write count.
  const calls = rows.flatMap((row) => {
    const session = str(row.chat_session_id);
    const end = row.end_time_ms;
    if (!session || !journals.has(session) || typeof end !== 'number' || !(end > 0)) return [];
    newest = Math.max(newest, cursorMs(end));
    const ev = eventsOf(session);
    if (!ev.firstTime(`span:${String(row.span_id)}`)) return [];
    const written = attribute?.get(String(row.span_id), CACHE_WRITE) as string | number | null | undefined;
    if (written !== undefined && written !== null) state.cacheWrites = true;
    return [{ row, session, ev, end, cacheWrite: numberOf(written) }];
  });
  // The folder of each session read, looked up once (its workspace's `workspace.json`).
  const cwds = new Map<string, string | undefined>();
  for (const { row, session, ev, end, cacheWrite } of calls) {
    if (!cwds.has(session)) cwds.set(session, cwdOf(journals.get(session)!));
    const cwd = cwds.get(session);
    ev.meta({ ...(cwd ? { cwd } : {}), hosted: true });
    ev.activity(end);
    if (row.input_tokens === null && row.output_tokens === null) continue;
    const turn = `${session}:${typeof row.turn_index === 'number' ? row.turn_index : ''}`;
    if (state.turns[turn] === undefined && !ev.firstTime(`tokens:${turn}`)) continue; // the journal counted this turn
    state.turns[turn] = end;
    const prompt = numberOf(row.input_tokens);
    const cacheRead = numberOf(row.cached_tokens);
    const usage: Usage = {
      // NaN (a damaged count) stays NaN through the max: the store skips the call as implausible.
      input: Math.max(0, prompt - cacheRead - cacheWrite),
      output: numberOf(row.output_tokens),
      cacheRead,
      cacheWrite,
      cacheWrite1h: 0,
      reasoning: numberOf(row.reasoning_tokens),
    };
    const model = str(row.request_model) ?? str(row.response_model) ?? 'unknown';
    ev.usage(
      model,
      usage,
      Number.isFinite(prompt) ? prompt : 0,
      end,
      undefined,
      state.cacheWrites ? undefined : NO_CACHE_WRITES,
    );
  }
  for (const [turn, end] of Object.entries(state.turns)) if (end < newest - KEEP_TURNS_MS) delete state.turns[turn];
  state.since = newest;
}
