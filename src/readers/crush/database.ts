// Reading one Crush project's `crush.db` incrementally. A `sessions` row's `cost` is a running
// total (counted by its growth); its `prompt_tokens` and `completion_tokens` hold only the last
// call's (they are overwritten, never summed), so they give the context in use and no token
// counts at all. `messages` rows (text ids, updated in place as they stream, stamped in Unix
// seconds) hold prompts, tool calls, results and each answer's `finish` part; they are read from
// the cursor with an overlap and deduplicated by id. A subagent's (agent tool's) session counts
// its cost and tools for the session that started it.

import { jsonValue, obj, str, type Json } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { cursorSeconds, requireColumns, rowsById, secondsToMs, selectList, type Db } from '../sqlite.js';
import { rootFinder } from '../chain.js';
import { ZERO_USAGE, type TurnOutcome } from '../../session/types.js';
import { countGrowth, dollars, skipTotals, type Marks } from '../cumulative.js';
import { classifyTool } from './tools.js';

export interface CrushState {
  sig?: string;
  /** Rows updated at or after this time (Unix seconds) are read again. */
  since: number;
  /** The cost counted, per session. */
  marks: Marks;
}

// Rows are stamped in whole seconds, before their transaction commits: a few are read twice.
const OVERLAP_S = 5;
// A message is updated in place until its answer finished: the messages created this long before
// the cursor are looked at for updates (through the `created_at` index, not the whole table).
const STREAMING_S = 3600;

const SESSION_COLUMNS = [
  'id',
  'parent_session_id',
  'prompt_tokens',
  'completion_tokens',
  'cost',
  'summary_message_id',
  'created_at',
  'updated_at',
] as const;
type SessionRow = Record<(typeof SESSION_COLUMNS)[number], unknown> & { id: string };

const OUTCOMES: Record<string, TurnOutcome | null> = {
  tool_use: null,
  error: 'failed',
  content_filter: 'failed',
  canceled: 'interrupted',
  permission_denied: 'interrupted',
};

/** A part of a message: `{type, data}`. */
function parts(text: unknown): Json[] | undefined {
  const v = jsonValue(typeof text === 'string' ? text : '');
  return Array.isArray(v) ? v.map(obj).filter((p): p is Json => p !== undefined) : undefined;
}

export function readCrush(db: Db, cwd: string, state: CrushState, eventsOf: (id: string) => SessionEvents): void {
  const sessionCols = requireColumns(db, 'sessions', ['id', 'cost', 'updated_at']);
  const messageCols = requireColumns(db, 'messages', ['id', 'session_id', 'role', 'parts', 'created_at', 'updated_at']);
  const select = `SELECT ${selectList(sessionCols, SESSION_COLUMNS)} FROM sessions`;
  const rows = rowsById<SessionRow>(db, `${select} WHERE id = ?`);
  const rowOf = rows.get;
  const rootOf = rootFinder((id) => {
    const parent = str(rowOf(id)?.parent_session_id);
    return parent && rowOf(parent) ? parent : undefined;
  });
  // The model of a session's latest answer: Crush's sessions row names none.
  const modelOf = messageCols.has('model')
    ? db
        .prepare(
          "SELECT model FROM messages WHERE session_id = ? AND role = 'assistant' AND model IS NOT NULL ORDER BY created_at DESC LIMIT 1",
        )
        .pluck()
    : undefined;
  const from = state.since - OVERLAP_S;
  let newest = state.since;

  for (const row of db.prepare(`${select} WHERE updated_at >= ? ORDER BY updated_at`).all(from) as SessionRow[]) {
    rows.set(row.id, row);
    const root = rootOf(row.id);
    const ev = eventsOf(root);
    ev.meta({ cwd });
    const updated = secondsToMs(row.updated_at);
    newest = Math.max(newest, cursorSeconds(row.updated_at));
    for (const t of [row.created_at, row.updated_at]) if (secondsToMs(t)) ev.activity(secondsToMs(t)!);
    const model = (modelOf?.get(row.id) as string | undefined) ?? 'unknown';
    const cost = dollars(row.cost);
    if (Number.isNaN(cost)) {
      skipTotals(ev, row.id, [row.cost]);
      continue;
    }
    countGrowth(ev, state.marks, row.id, model, ZERO_USAGE, cost, updated ?? 0);
    if (root !== row.id) continue;
    if (model !== 'unknown') ev.meta({ model });
    const prompt = row.prompt_tokens;
    const completion = row.completion_tokens;
    // The last call's prompt (input and cache reads) and its answer: what the context holds now.
    if (model !== 'unknown' && typeof prompt === 'number' && prompt > 0)
      ev.context(model, prompt + (typeof completion === 'number' && completion > 0 ? completion : 0));
    const summary = str(row.summary_message_id);
    if (summary && ev.firstTime(`compaction:${summary}`)) ev.compaction();
  }

  const messages = db
    .prepare(
      `SELECT ${selectList(messageCols, ['id', 'session_id', 'role', 'parts', 'created_at', 'updated_at', 'is_summary_message'])}
    FROM messages WHERE created_at >= ? AND updated_at >= ? ORDER BY created_at, rowid`,
    )
    .all(from - STREAMING_S, from) as Json[];
  for (const m of messages) {
    const session = str(m.session_id);
    if (!session || !rowOf(session)) continue;
    newest = Math.max(newest, cursorSeconds(m.updated_at));
    const root = rootOf(session);
    readMessage(m, eventsOf(root), root !== session, cwd);
  }
  state.since = newest;
}

function readMessage(m: Json, ev: SessionEvents, child: boolean, cwd: string): void {
  const id = str(m.id)!;
  const ts = secondsToMs(m.updated_at) ?? secondsToMs(m.created_at);
  const ps = parts(m.parts);
  if (ts === undefined || !ps) return ev.skipped('parse_error');
  ev.meta({ cwd });
  ev.activity(ts);
  const created = secondsToMs(m.created_at) ?? ts;
  if (m.role === 'user') {
    if (child || m.is_summary_message === 1 || !ps.some((p) => p.type === 'text')) return;
    if (ev.firstTime(`turn:${id}`)) {
      ev.turnStarted(created);
      ev.prompt(created);
    }
    return;
  }
  for (const p of ps) {
    const data = obj(p.data) ?? {};
    if (p.type === 'tool_call') {
      const callId = str(data.id);
      if (callId && ev.firstTime(`call:${callId}`)) ev.toolCall(callId, classifyTool(str(data.name) ?? ''));
    } else if (p.type === 'tool_result') {
      const callId = str(data.tool_call_id);
      if (callId && ev.firstTime(`result:${callId}`))
        ev.toolResult(callId, data.is_error === true, classifyTool(str(data.name) ?? ''));
    } else if (p.type === 'finish' && m.role === 'assistant' && !child && m.is_summary_message !== 1) {
      // Crush gives every message but an answer a `stop` finish; an answer's ends its turn.
      const reason = str(data.reason) ?? '';
      const outcome = Object.hasOwn(OUTCOMES, reason) ? OUTCOMES[reason] : 'completed';
      if (outcome && ev.firstTime(`end:${id}`)) ev.turnEnded(outcome, secondsToMs(data.time) ?? ts);
    }
  }
}
