// Hermes agent (NousResearch): every profile keeps its sessions in its own SQLite `state.db`:
// `$HERMES_HOME` or `~/.hermes`, and `<home>/profiles/<name>/state.db` for each named profile
// (a gateway serves several profiles from one process, writing several databases). Nothing else
// there (config, `.env`, credentials) is opened.

import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readHermes, type HermesState } from './database.js';
import { databases, hermes as where } from './where.js';

export const hermes: StoreReader<HermesState> = {
  ...where,
  kind: 'store',
  listFiles: databases,
  initialState: () => ({ message: 0, since: 0, marks: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readHermes(db, state, eventsOf));
  },
};
