// Hermes agent (NousResearch): every profile keeps its sessions in its own SQLite `state.db`:
// `$HERMES_HOME` or `~/.hermes`, and `<home>/profiles/<name>/state.db` for each named profile
// (a gateway serves several profiles from one process, writing several databases). Nothing else
// there (config, `.env`, credentials) is opened.

import { join } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import type { SessionFile, StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readHermes, type HermesState } from './database.js';

const DB = 'state.db';

/** The profiles' databases of a Hermes home: the default profile's, then the named ones'. */
function databases(root: string): SessionFile[] {
  const named = listDir(join(root, 'profiles')).filter((e) => e.isDirectory).map((e) => ({ path: join(e.path, DB), sessionId: e.name }));
  return [{ path: join(root, DB), sessionId: 'default' }, ...named].filter((f) => isFile(f.path));
}

export const hermes: StoreReader<HermesState> = {
  harness: 'hermes',
  kind: 'store',
  // The contract's Hermes reader shows a failed turn as done: Hermes's picker marks no errors.
  facts: { noErrorStatus: true },
  defaultRoots: (env, home) => [...new Set([env.HERMES_HOME || join(home, '.hermes'), join(home, '.hermes')])],
  // A new profile's folder shows up in `profiles/`; its database is watched from the next scan.
  watchPaths: () => [],
  watchFiles: (root) => [join(root, DB), ...databases(root).map((f) => f.path)]
    .filter((p, i, all) => all.indexOf(p) === i).flatMap((db) => [db, `${db}-wal`]),
  listFiles: databases,
  initialState: () => ({ message: 0, since: 0, marks: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readHermes(db, state, eventsOf));
  },
};
