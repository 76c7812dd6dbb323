// Charm's Crush: each project keeps its sessions in its own SQLite database, `<project>/.crush/
// crush.db` (the `data_directory` option moves it); the projects Crush has opened are listed in
// `projects.json` in its global data folder: `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush` or
// `~/.local/share/crush`. That list is the root; nothing else there (`crush.json`, provider keys)
// is opened. Crush's token columns hold only the last call: no token counts are exported.

import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { TOKEN_TYPES } from '../../session/vocabulary.js';
import { readCrush, type CrushState } from './database.js';
import { databases, crush as where } from './where.js';

export const crush: StoreReader<CrushState> = {
  ...where,
  kind: 'store',
  unrecorded: TOKEN_TYPES,
  listFiles: databases,
  initialState: () => ({ since: 0, marks: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readCrush(db, file.sessionId, state, eventsOf));
  },
};
