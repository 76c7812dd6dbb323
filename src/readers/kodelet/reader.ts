// Kodelet: conversations in the SQLite database `storage.db` under `$KODELET_BASE_PATH`, else
// `~/.kodelet`. Nothing else there (config, credentials) is opened.

import { isFile } from '../../files/dir.js';
import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readKodelet, type KodeletState } from './database.js';
import { dbOf, kodelet as where } from './where.js';

export const kodelet: StoreReader<KodeletState> = {
  ...where,
  kind: 'store',
  // Reasoning is inside output, not counted apart.
  unrecorded: ['reasoning'],
  listFiles: (root) => (isFile(dbOf(root)) ? [{ path: dbOf(root), sessionId: 'storage.db' }] : []),
  initialState: () => ({ since: 0, marks: {}, convs: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readKodelet(db, state, eventsOf));
  },
};
