// Zed's agent threads (the editor's own agent; external ACP agents' threads are their harness's):
// one SQLite database, `threads.db`, read-only (database.ts), each thread's JSON read by thread.ts.
// Zed records no reasoning apart from output and no cost (list prices apply), and persists no live
// state: what it is doing now is in memory only.

import { isFile } from '../../files/dir.js';
import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readThreads, type ZedState } from './database.js';
import { dbOf, zed as where } from './where.js';

export const zed: StoreReader<ZedState> = {
  ...where,
  kind: 'store',
  unrecorded: ['reasoning'],
  listFiles: (root) => (isFile(dbOf(root)) ? [{ path: dbOf(root), sessionId: 'threads.db' }] : []),
  initialState: () => ({ since: 0, marks: {}, recent: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readThreads(db, state, eventsOf));
  },
};
