// Reading an OpenCode (or Kilo) database incrementally: the sessions changed since the cursor,
// plus the sessions whose turn is still open (their parts stream without touching the session
// row), and of each only the message and part rows updated since the cursor.

import { countTodos, jsonObject } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { columnsOf, selectList, type Db } from '../sqlite.js';
import {
  markLive,
  READ_PART_TYPES,
  readMessage,
  readPart,
  sessionTarget,
  turnLines,
  type DbState,
  type RecordRow,
  type SessionContext,
  type SessionRow,
  type Target,
} from './records.js';
import { readV2Sessions } from './database-v2.js';
import { rootFinder } from '../chain.js';

// Rows are read again this far back: a writer stamps a row before it commits it, so a row of
// another process may appear after a newer one was read. Reading a row twice counts nothing twice.
const OVERLAP_MS = 5000;
// An open turn with no row for this long was abandoned (the process died): its session is no
// longer read on every change.
const LIVE_MS = 2 * 3600 * 1000;

// Only the fields the reader uses cross into JavaScript: a tool part's output or a diff's file
// contents can be megabytes, which SQLite leaves where they are while it extracts the rest. Data
// that is not JSON passes as it is, to be reported as a parse error.
const slim = (column: string, fields: string) =>
  `CASE WHEN json_valid(${column}) THEN json_object(${fields.replaceAll('$d', column)}) ELSE ${column} END`;
const PART_FIELDS = `'type', $d ->> '$.type', 'synthetic', $d -> '$.synthetic', 'ignored', $d -> '$.ignored',
  'callID', $d ->> '$.callID', 'tool', $d ->> '$.tool', 'state', json_object('status', $d ->> '$.state.status'),
  'tokens', $d -> '$.tokens', 'cost', $d -> '$.cost'`;
const MESSAGE_FIELDS = `'role', $d ->> '$.role', 'time', $d -> '$.time', 'modelID', $d ->> '$.modelID', 'finish', $d ->> '$.finish',
  'error', CASE WHEN $d -> '$.error' IS NOT NULL THEN json_object('name', $d ->> '$.error.name') END, 'parentID', $d ->> '$.parentID'`;
// Diffs only where they are a list, fields only of a diff that is an object (`->` on any other
// text fails the whole query: "malformed JSON"), as turnLines reads them. The list passes through
// `json()`: SQLite 3.54 (Node's) no longer carries a subquery's JSON subtype, and the list came out as a string.
const SUMMARY_FIELDS = `'summary', json_object('diffs', CASE WHEN json_type($d, '$.summary.diffs') = 'array' THEN json((SELECT json_group_array(
  CASE WHEN type = 'object' THEN json_object('additions', value -> '$.additions', 'deletions', value -> '$.deletions') END)
  FROM json_each($d, '$.summary.diffs'))) END)`;

/** The ids of `ids` that are sessions of this database. */
export function sessionsIn(db: Db, ids: readonly string[]): string[] {
  const lookups = ['session', 'session_v2']
    .filter((t) => columnsOf(db, t).has('id'))
    .map((t) => db.prepare(`SELECT 1 FROM ${t} WHERE id = ?`).pluck());
  return ids.filter((id) => lookups.some((q) => q.get(id) !== undefined));
}

/** Reads the rows changed since `state.since` and moves the cursor on. */
export function readDatabaseRows(
  db: Db,
  state: DbState,
  eventsOf: (sessionId: string) => SessionEvents,
  servers: SessionContext['servers'],
): void {
  const since = state.since;
  let newest = since;
  const seen = (t: number | null) => {
    if (typeof t === 'number' && t > newest) newest = t;
  };
  const sessionCols = columnsOf(db, 'session');
  const v2 = columnsOf(db, 'session_v2');
  const parentLookups = [...(v2.size ? ['session_v2'] : []), ...(sessionCols.has('parent_id') ? ['session'] : [])].map(
    (t) => db.prepare(`SELECT parent_id FROM ${t} WHERE id = ?`).pluck(),
  );
  const rootOf = rootFinder((id) => {
    for (const q of parentLookups) {
      const p = q.get(id) as string | null | undefined;
      if (p !== undefined) return p ?? undefined;
    }
    return undefined;
  });

  if (v2.size) readV2Sessions(db, v2, state, { rootOf, eventsOf, seen, servers });
  if (!sessionCols.has('id') || !sessionCols.has('time_updated')) return finish(state, newest);

  // 2.x keeps sessions carried over from 1.x in `session_v2` under the same id: read them there.
  const notV2 = v2.size ? 'AND id NOT IN (SELECT id FROM session_v2)' : '';
  const changed = db
    .prepare(
      `SELECT ${selectList(sessionCols, ['id', 'parent_id', 'directory', 'time_updated', 'time_archived'])}
    FROM session WHERE time_updated >= ? ${notV2} ORDER BY time_updated`,
    )
    .all(since) as SessionRow[];
  const liveIds = Object.keys(state.live).filter((id) => !changed.some((s) => s.id === id));
  const byId = db.prepare(
    `SELECT ${selectList(sessionCols, ['id', 'parent_id', 'directory', 'time_updated', 'time_archived'])} FROM session WHERE id = ?`,
  );
  const sessions = [
    ...changed,
    ...liveIds.map((id) => byId.get(id) as SessionRow | undefined).filter((s) => s !== undefined),
  ];
  for (const id of liveIds) if (!sessions.some((s) => s.id === id)) delete state.live[id]; // deleted

  const messageCols = columnsOf(db, 'message');
  const partCols = columnsOf(db, 'part');
  const messages =
    db.prepare(`SELECT id, time_created, time_updated, ${slim('data', MESSAGE_FIELDS)} AS data FROM message
    WHERE session_id = ? AND time_updated >= ?`);
  const parts = partCols.has('session_id')
    ? db.prepare(`SELECT p.id, p.message_id, p.time_created, p.time_updated, ${slim('p.data', PART_FIELDS)} AS data,
    m.data ->> '$.role' AS role, m.data ->> '$.modelID' AS model
    FROM part p LEFT JOIN message m ON m.id = p.message_id AND json_valid(m.data)
    WHERE p.session_id = ? AND p.time_updated >= ?
      AND CASE WHEN json_valid(p.data) THEN p.data ->> '$.type' IN (${[...READ_PART_TYPES].map((t) => `'${t}'`).join(', ')}) ELSE 1 END`)
    : undefined;
  const messageData = db.prepare(`SELECT ${slim('data', SUMMARY_FIELDS)} FROM message WHERE id = ?`).pluck();
  const todoCols = columnsOf(db, 'todo');
  const todos =
    todoCols.has('session_id') && todoCols.has('status')
      ? db.prepare('SELECT status FROM todo WHERE session_id = ?').pluck()
      : undefined;
  if (!messageCols.has('data')) return finish(state, newest);

  const ctx: SessionContext = {
    state,
    rootOf,
    eventsOf,
    seen,
    servers,
    messageData: (id) => messageData.get(id) as string | undefined,
    todos: (id) => todos?.all(id) ?? [],
  };
  for (const s of sessions) {
    const rows = [...(messages.all(s.id, since) as RecordRow[]), ...((parts?.all(s.id, since) ?? []) as RecordRow[])];
    readSession(s, rows, ctx);
  }
  finish(state, newest);
}

/** Reports one session's records changed since the cursor, wherever they are stored. */
export function readSession(s: SessionRow, records: RecordRow[], ctx: SessionContext): void {
  const t = sessionTarget(s, ctx);
  // In the order they were written: a message before its parts.
  const rows = [...records].sort(
    (a, b) =>
      a.time_created - b.time_created || Number(a.message_id !== undefined) - Number(b.message_id !== undefined),
  );
  let open: boolean | undefined;
  let latest = s.time_updated;
  for (const r of rows) {
    ctx.seen(r.time_updated);
    latest = Math.max(latest, r.time_updated);
    const data = jsonObject(r.data);
    if (!data) {
      t.events.skipped('parse_error');
      continue;
    }
    if (r.message_id === undefined) {
      const m = readMessage(t, r.id, data, r.time_updated);
      open = m.open;
      if (m.ended) countTurnLines(t, m.ended, ctx.messageData(m.ended));
    } else {
      readPart(t, r.id, r.message_id, r.role ?? undefined, r.model ?? undefined, data, r.time_updated);
    }
  }
  // The plan is rewritten whole on every change: it is reported as it is now.
  const plan = t.child ? [] : ctx.todos(s.id);
  if (plan.length > 0) t.events.todos(countTodos(plan));
  markLive(ctx.state, s.id, open, latest);
}

function countTurnLines(t: Target, userMessageId: string, data: string | undefined): void {
  const lines = data ? turnLines(jsonObject(data) ?? {}) : undefined;
  if (lines && (lines.added || lines.removed) && t.events.firstTime(`lines:${userMessageId}`))
    t.events.lines(lines.added, lines.removed);
}

/** Moves the cursor to the newest record read, less the overlap; forgets abandoned turns. */
export function finish(state: DbState, newest: number): void {
  state.since = Math.max(state.since, newest - OVERLAP_MS);
  for (const [id, at] of Object.entries(state.live)) if (newest - at > LIVE_MS) delete state.live[id];
}
