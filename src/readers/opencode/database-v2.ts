// OpenCode 2.x: sessions in `session_v2`, their messages in `session_message` (typed rows with a
// per-session `seq`, updated in place while an answer streams). A turn is every row up to the
// `idle` row that ends it.

import { jsonObject, num, numberOf, obj, str, type Json } from '../fields.js';
import { columnsOf, selectList, type Db } from '../sqlite.js';
import type { TurnOutcome } from '../../session/types.js';
import type { DbState, SessionContext } from './records.js';
import { countCall, markLive, readToolCall, sessionTarget, type Target } from './records.js';

interface V2Session {
  id: string;
  directory: string | null;
  time_updated: number;
  /** When the person last looked at the session (the read marker). */
  time_viewed: number | null;
  time_archived: number | null;
}

const OUTCOMES: Record<string, TurnOutcome> = { succeeded: 'completed', failed: 'failed', interrupted: 'interrupted' };

export function readV2Sessions(
  db: Db,
  cols: Set<string>,
  state: DbState,
  ctx: Pick<SessionContext, 'rootOf' | 'eventsOf' | 'seen' | 'servers'>,
): void {
  const messageCols = columnsOf(db, 'session_message');
  if (!cols.has('time_updated') || !messageCols.has('data')) return;
  const select = `SELECT ${selectList(cols, ['id', 'directory', 'time_updated', 'time_viewed', 'time_archived'])} FROM session_v2`;
  const changed = db.prepare(`${select} WHERE time_updated >= ?`).all(state.since) as V2Session[];
  const byId = db.prepare(`${select} WHERE id = ?`);
  const live = Object.keys(state.live)
    .filter((id) => !changed.some((s) => s.id === id))
    .map((id) => byId.get(id) as V2Session | undefined)
    .filter((s) => s !== undefined);
  const order = messageCols.has('seq') ? 'seq' : 'time_created, id';
  const rows = db.prepare(`SELECT id, type, time_created, time_updated, data FROM session_message
    WHERE session_id = ? AND time_updated >= ? ORDER BY ${order}`);

  for (const s of [...changed, ...live]) {
    const t = sessionTarget({ ...s, parent_id: null }, ctx);
    if (!t.child && s.time_viewed) t.events.viewed(s.time_viewed);
    let open: boolean | undefined;
    for (const r of rows.all(s.id, state.since) as {
      id: string;
      type: string;
      time_created: number;
      time_updated: number;
      data: string;
    }[]) {
      ctx.seen(r.time_updated);
      const data = jsonObject(r.data);
      if (!data) {
        t.events.skipped('parse_error');
        continue;
      }
      open = readRow(t, r.id, r.type, data, r.time_created, r.time_updated) ?? open;
    }
    markLive(state, s.id, open, s.time_updated);
  }
}

/** One `session_message` row; returns whether the turn is open after it, when it says. */
function readRow(
  t: Target,
  id: string,
  type: string,
  data: Json,
  created: number,
  updated: number,
): boolean | undefined {
  const ev = t.events;
  ev.activity(updated);
  switch (type) {
    case 'user':
      if (t.child) return undefined;
      if (ev.firstTime(`turn:${id}`)) ev.turnStarted(created);
      if (ev.firstTime(`prompt:${id}`)) ev.prompt(created);
      return true;
    case 'assistant':
      readAssistant(t, id, data, updated);
      return t.child ? undefined : true;
    case 'compaction':
      if (data.status !== 'completed') return undefined;
      if (ev.firstTime(`compaction:${id}`)) ev.compaction();
      countUsage(t, id, data, str(obj(data.model)?.id), updated);
      return undefined;
    case 'idle': {
      if (t.child) return undefined;
      if (ev.firstTime(`end:${id}`))
        ev.turnEnded(OUTCOMES[str(data.outcome) ?? ''] ?? 'completed', num(obj(data.time)?.created) || created);
      return false;
    }
    default:
      return undefined;
  }
}

function readAssistant(t: Target, id: string, data: Json, updated: number): void {
  const ev = t.events;
  const model = str(obj(data.model)?.id);
  if (model && !t.child) ev.meta({ model });
  for (const c of Array.isArray(data.content) ? data.content : []) {
    const part = obj(c);
    if (part?.type !== 'tool') continue;
    const callId = str(part.id);
    const name = str(part.name);
    const status = str(obj(part.state)?.status);
    if (!callId || !name || !status) {
      ev.skipped('unknown_shape');
      continue;
    }
    readToolCall(t, callId, name, status);
  }
  // Tokens are final once the answer is complete.
  if (num(obj(data.time)?.completed)) countUsage(t, id, data, model, updated);
}

function countUsage(t: Target, id: string, data: Json, model: string | undefined, ts: number): void {
  const tokens = obj(data.tokens);
  if (tokens && model) countCall(t, `usage:${id}`, tokens, model, ts, numberOf(data.cost));
}
