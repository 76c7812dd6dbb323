// OpenCode before 1.2 (and Kilo before 7.0.26) kept sessions as JSON files under `<data>/storage`:
// `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<messageID>.json` and
// `part/<messageID>/<partID>.json`, each rewritten in place while an answer streams. They hold the
// same objects as the database's rows, so they are reported by the same routine: a file's mtime
// is its row's `time_updated`. Nothing else under `storage/` (nor beside it) is opened.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, jsonValue, num, obj, str, type Json } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { finish, readSession } from './database.js';
import { type DbState, type RecordRow, type SessionContext, READ_PART_TYPES } from './records.js';
import { rootFinder } from '../chain.js';

// A file written in the same clock tick as the newest one read may have been missed (coarse
// file system clocks): the storage is read again while the newest file is this recent.
const SETTLE_MS = 2000;

/** A JSON file named by the id of the object it holds, with its mtime. */
interface Stamped {
  id: string;
  path: string;
  mtime: number;
}

// Listed without listDir's cache: there is a folder per message, and the cache would keep the
// listing of every one for the life of the process.
function jsonFiles(dir: string): Stamped[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .sort() // ids ascend in the order they were made
    .flatMap((name) => {
      const path = join(dir, name);
      try {
        const st = statSync(path);
        return st.isFile() ? [{ id: name.slice(0, -'.json'.length), path, mtime: st.mtimeMs }] : [];
      } catch {
        return []; // removed since the listing
      }
    });
}

// A part's own `type`, found before it is parsed: in the files OpenCode pretty-prints with two
// spaces, the only `"type"` key indented by two spaces is the top-level one (a string holds no
// raw line break). Parts of other types can be large (reasoning, files inlined as data URLs).
const PART_TYPE = /^ {2}"type": "([^"\\]*)"/m;

/** Files read once each: their text for the shared routine, and their object. */
class Loaded {
  private readonly cache = new Map<string, { text?: string; json?: Json }>();
  get(path: string): { text?: string; json?: Json } {
    let f = this.cache.get(path);
    if (!f) {
      const text = readText(path);
      this.cache.set(path, (f = { text, json: text === undefined ? undefined : jsonObject(text) }));
    }
    return f;
  }
}

/**
 * Reads the sessions of `storage` changed since the cursor, and those whose turn is still open,
 * skipping the sessions `inDatabase` names (the database holds them since 1.2). Returns false
 * when nothing changed.
 */
export function readStorage(
  storage: string,
  state: DbState,
  eventsOf: (sessionId: string) => SessionEvents,
  inDatabase: (ids: string[]) => string[],
  servers: SessionContext['servers'],
): boolean {
  const sessions = new Map<string, Stamped>();
  for (const project of listDir(join(storage, 'session'))) {
    if (project.isDirectory) for (const f of jsonFiles(project.path)) sessions.set(f.id, f);
  }
  for (const id of Object.keys(state.live)) if (!sessions.has(id)) delete state.live[id]; // deleted

  const { since, newest = -1 } = state;
  const candidates = [...sessions.values()].filter((s) => s.mtime >= since || s.id in state.live);
  // A session file changes when a turn starts or ends; in between, only the files of the sessions
  // whose turn is open do (a tool part streams without its message or session being rewritten).
  const fresh = candidates.some((s) => s.mtime > newest) || Date.now() - newest < SETTLE_MS;
  // The database is asked only then: the sessions still live were asked about already.
  const skip = new Set(fresh && candidates.length ? inDatabase(candidates.map((s) => s.id)) : []);
  for (const id of skip) delete state.live[id];
  const reads = candidates
    .filter((s) => (fresh ? !skip.has(s.id) : s.id in state.live))
    .map((s) => ({
      session: s,
      files: jsonFiles(join(storage, 'message', s.id)).map((m) => ({
        message: m,
        parts: jsonFiles(join(storage, 'part', m.id)),
      })),
    }));
  const files = reads.flatMap((r) => r.files).flatMap((f) => [f.message, ...f.parts]);
  if (!fresh && !files.some((f) => f.mtime > newest)) return false;

  // The cursor moves past every file seen, also those of the sessions left to the database.
  let latest = since;
  const seen = (t: number) => void (latest = Math.max(latest, t));
  for (const f of [...candidates, ...files]) seen(f.mtime);

  const infos = new Loaded();
  const infoOf = (id: string) => {
    const s = sessions.get(id);
    return s ? infos.get(s.path).json : undefined;
  };
  const rootOf = rootFinder((id) => str(infoOf(id)?.parentID));
  for (const { session, files } of reads) {
    const info = infoOf(session.id);
    if (!info) {
      eventsOf(session.id).skipped('parse_error');
      continue;
    }
    // Message files are kept for this session only: memory stays bounded by the largest session.
    const messages = new Loaded();
    const messageData = (id: string) => {
      const f = files.find((x) => x.message.id === id);
      return f && messages.get(f.message.path).text;
    };
    const row = {
      id: session.id,
      parent_id: str(info.parentID) ?? null,
      directory: str(info.directory) ?? null,
      time_updated: session.mtime,
    };
    // `todo/<session>.json`: the plan's items, `[{content, status, priority}]`.
    const todos = (id: string) => {
      const items = jsonValue(readText(join(storage, 'todo', `${id}.json`)) ?? '');
      return Array.isArray(items) ? items.map((i) => obj(i)?.status) : [];
    };
    readSession(row, changedRecords(files, since, messages), {
      state,
      eventsOf,
      rootOf,
      seen,
      messageData,
      todos,
      servers,
    });
  }
  state.newest = Math.max(newest, latest);
  finish(state, latest);
  return true;
}

/** The message and part files of a session written since the cursor, as the shared routine's rows. */
function changedRecords(files: { message: Stamped; parts: Stamped[] }[], since: number, loaded: Loaded): RecordRow[] {
  const rows: RecordRow[] = [];
  for (const { message, parts } of files) {
    const changedParts = parts.filter((p) => p.mtime >= since);
    if (message.mtime < since && !changedParts.length) continue;
    const m = loaded.get(message.path);
    // A part has no creation time of its own: it sorts after its message, in id order.
    const created = num(obj(m.json?.time)?.created) || message.mtime;
    if (message.mtime >= since && m.text !== undefined)
      rows.push({ id: message.id, time_created: created, time_updated: message.mtime, data: m.text });
    for (const p of changedParts) {
      const text = readText(p.path);
      const type = text && PART_TYPE.exec(text)?.[1];
      if (type && !READ_PART_TYPES.has(type)) continue;
      if (text !== undefined)
        rows.push({
          id: p.id,
          message_id: message.id,
          time_created: created,
          time_updated: p.mtime,
          data: text,
          role: str(m.json?.role),
          model: str(m.json?.modelID),
        });
    }
  }
  return rows;
}
