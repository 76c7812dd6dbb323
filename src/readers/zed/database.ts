// Reading Zed's `threads.db` incrementally: one `threads` row a thread (`id`, `updated_at`,
// `data_type`, `data`; later builds added `parent_id`, `folder_paths`, `folder_paths_order` and
// `created_at`), upserted whole at every save. `data` is the thread's JSON, zstd-compressed
// (`data_type` `zstd`) or plain in older rows (`json`). Only rows saved since the cursor (with an
// overlap) are read, and of those only a version of a row not read before: a row is decompressed
// and parsed once per save.

import type { SessionEvents } from '../../session/events.js';
import type { Marks } from '../cumulative.js';
import { documentObject } from '../document.js';
import { str, time, type Json } from '../fields.js';
import { cursorMs, requireColumns, selectList, type Db } from '../sqlite.js';
import { unzstd } from '../zstd.js';
import { readThread } from './thread.js';

export interface ZedState {
  sig?: string;
  /** Rows saved at or after this time (ms) are read again. */
  since: number;
  /** The token totals counted, per thread. */
  marks: Marks;
  /** The version of each row read within the overlap: read again unchanged, it is not parsed again. */
  recent: Record<string, string>;
}

// Zed stamps a row with the time its thread last changed, before the save commits.
const OVERLAP_MS = 5000;
// A thread's JSON is held to what a session document may be (the collector's limit on one): a few
// kilobytes of zstd can decompress to gigabytes.
const MAX_THREAD = 32 << 20;

const COLUMNS = [
  'id',
  'updated_at',
  'created_at',
  'data_type',
  'data',
  'parent_id',
  'folder_paths',
  'folder_paths_order',
] as const;
type Row = Record<(typeof COLUMNS)[number], unknown>;

export function readThreads(db: Db, state: ZedState, eventsOf: (id: string) => SessionEvents): void {
  const have = requireColumns(db, 'threads', ['id', 'updated_at', 'data_type', 'data']);
  // `updated_at` is RFC 3339 UTC text (`…T10:12:03.123456+00:00`): compared as text from the
  // cursor's whole second, which every later time sorts after.
  const from = new Date(Math.max(0, state.since - OVERLAP_MS)).toISOString().slice(0, 19);
  let newest = state.since;
  const read: [id: string, version: string, updated: number][] = [];
  for (const row of db
    .prepare(`SELECT ${selectList(have, COLUMNS)} FROM threads WHERE updated_at >= ? ORDER BY updated_at`)
    .iterate(from) as IterableIterator<Row>) {
    const id = str(row.id);
    const updated = time(row.updated_at);
    if (!id || updated === undefined) continue;
    newest = Math.max(newest, cursorMs(updated));
    const size = row.data instanceof Uint8Array || typeof row.data === 'string' ? row.data.length : 0;
    const version = `${String(row.updated_at)}/${size}`;
    read.push([id, version, updated]);
    if (state.recent[id] === version) continue;
    const ev = eventsOf(id);
    const data = threadData(row, ev);
    if (!data) continue;
    const parent = str(row.parent_id) || str((data.subagent_context as Json | null | undefined)?.parent_thread_id);
    readThread(
      data,
      { id, created: time(row.created_at) ?? updated, updated, cwd: firstFolder(row), child: Boolean(parent) },
      state.marks,
      ev,
    );
  }
  state.since = newest;
  state.recent = Object.fromEntries(
    read.filter(([, , updated]) => updated >= newest - OVERLAP_MS).map(([id, version]) => [id, version]),
  );
}

/** The row's JSON; undefined, counted as skipped, where it does not decompress or parse. */
function threadData(row: Row, ev: SessionEvents): Json | undefined {
  const blob = row.data;
  let bytes: Buffer;
  if (row.data_type === 'zstd' && blob instanceof Uint8Array) {
    const out = unzstd(blob, MAX_THREAD);
    if (typeof out === 'string') {
      ev.skipped(out === 'too_large' ? 'file_too_large' : 'parse_error');
      return undefined;
    }
    bytes = out;
  } else if (row.data_type === 'json' && (blob instanceof Uint8Array || typeof blob === 'string')) {
    bytes = Buffer.from(blob);
    if (bytes.length > MAX_THREAD) {
      ev.skipped('file_too_large');
      return undefined;
    }
  } else {
    ev.skipped('unknown_shape');
    return undefined;
  }
  return documentObject(bytes, ev);
}

/**
 * The thread's first project folder: `folder_paths` holds the worktrees' paths sorted, one a line,
 * and `folder_paths_order` the index each had in the project's own order (Zed's `PathList`).
 */
function firstFolder(row: Row): string | undefined {
  const paths = (str(row.folder_paths) ?? '').split('\n');
  const order = (str(row.folder_paths_order) ?? '').split(',');
  // An order that does not fit the paths is dropped, as Zed drops it (its `PathList::deserialize`).
  const at = order.length === paths.length ? order.indexOf('0') : 0;
  return paths[Math.max(0, at)] || undefined;
}
