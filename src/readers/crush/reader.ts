// Charm's Crush: each project keeps its sessions in its own SQLite database, `<project>/.crush/
// crush.db` (the `data_directory` option moves it); the projects Crush has opened are listed in
// `projects.json` in its global data folder: `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush` or
// `~/.local/share/crush`. That list is the root; nothing else there (`crush.json`, provider keys)
// is opened. Crush's token columns hold only the last call: no token counts are exported.

import { isAbsolute, join, resolve } from 'node:path';
import { isFile, readText } from '../../files/dir.js';
import { jsonObject, obj, str } from '../fields.js';
import type { SessionFile, StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { TOKEN_TYPES } from '../../session/vocabulary.js';
import { readCrush, type CrushState } from './database.js';

const PROJECTS = 'projects.json';

/** Each listed project's database that exists; the file's session id is the project's folder. */
function databases(root: string): SessionFile[] {
  const list = jsonObject(readText(join(root, PROJECTS)) ?? '')?.projects;
  const out: SessionFile[] = [];
  for (const p of Array.isArray(list) ? list : []) {
    const path = str(obj(p)?.path);
    if (!path || !isAbsolute(path)) continue;
    const dataDir = str(obj(p)?.data_dir) || '.crush';
    const db = resolve(path, dataDir, 'crush.db');
    if (isFile(db) && !out.some((f) => f.path === db)) out.push({ path: db, sessionId: path });
  }
  return out;
}

export const crush: StoreReader<CrushState> = {
  harness: 'crush',
  kind: 'store',
  unrecorded: TOKEN_TYPES,
  defaultRoots: (env, home) => [env.CRUSH_GLOBAL_DATA || join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'crush')],
  watchPaths: () => [],
  // The list of projects, and each project's database (outside the root, in the project).
  watchFiles: (root) => [join(root, PROJECTS), ...databases(root).flatMap((f) => [f.path, `${f.path}-wal`])],
  listFiles: databases,
  initialState: () => ({ since: 0, marks: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readCrush(db, file.sessionId, state, eventsOf));
  },
};

