// Block's goose: sessions in the SQLite database `sessions/sessions.db` of its data folder,
// `$GOOSE_PATH_ROOT/data`, else `$XDG_DATA_HOME/goose` or `~/.local/share/goose` (also on macOS).
// The JSONL session files of goose before 1.10 are not read. Nothing else there is opened.

import { join } from 'node:path';
import { isFile } from '../../files/dir.js';
import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readGoose, type GooseState } from './database.js';

const dbOf = (root: string) => join(root, 'sessions', 'sessions.db');

export const goose: StoreReader<GooseState> = {
  harness: 'goose',
  kind: 'store',
  // Reasoning is inside the accumulated output, not counted apart.
  unrecorded: ['reasoning'],
  defaultRoots: (env, home) => [env.GOOSE_PATH_ROOT ? join(env.GOOSE_PATH_ROOT, 'data') : join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'goose')],
  watchPaths: () => [],
  watchFiles: (root) => [dbOf(root), `${dbOf(root)}-wal`],
  listFiles: (root) => (isFile(dbOf(root)) ? [{ path: dbOf(root), sessionId: 'sessions.db' }] : []),
  initialState: () => ({ message: 0, ledger: 0, since: 0, marks: {}, turn: {}, compacted: {}, ledgered: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readGoose(db, state, eventsOf));
  },
};
