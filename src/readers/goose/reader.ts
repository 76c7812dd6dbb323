// Block's goose: sessions in the SQLite database `sessions/sessions.db` of its data folder,
// `$GOOSE_PATH_ROOT/data`, else `$XDG_DATA_HOME/goose` or `~/.local/share/goose` (also on macOS).
// The JSONL session files of goose before 1.10 are not read. Nothing else there is opened.

import { isFile } from '../../files/dir.js';
import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readGoose, type GooseState } from './database.js';
import { dbOf, goose as where } from './where.js';

export const goose: StoreReader<GooseState> = {
  ...where,
  kind: 'store',
  // Reasoning is inside the accumulated output, not counted apart.
  unrecorded: ['reasoning'],
  listFiles: (root) => (isFile(dbOf(root)) ? [{ path: dbOf(root), sessionId: 'sessions.db' }] : []),
  initialState: () => ({ message: 0, ledger: 0, since: 0, marks: {}, turn: {}, compacted: {}, ledgered: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readGoose(db, state, eventsOf));
  },
};
