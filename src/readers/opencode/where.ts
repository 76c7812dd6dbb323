// Where OpenCode and its fork Kilo keep their databases (the parser, reader.ts, is loaded once a
// root is there).

import { isAbsolute, join } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import type { Where } from '../reader.js';
import type { HarnessId } from '../../session/types.js';

export interface Family {
  harness: HarnessId;
  /** The folder name under the data folder, and the database's base name. */
  app: string;
  /** The environment variable that names another database. */
  dbEnv: string;
}

export const OPENCODE: Family = { harness: 'opencode', app: 'opencode', dbEnv: 'OPENCODE_DB' };

/** The databases of a root (`<app>.db`, `<app>-<channel>.db`), or the root itself where it is a database. */
export function databasesOf(app: string): (root: string) => string[] {
  const dbName = new RegExp(`^${app}(-[A-Za-z0-9._-]+)?\\.db$`);
  return (root) =>
    isFile(root)
      ? [root]
      : listDir(root)
          .filter((e) => e.isFile && dbName.test(e.name))
          .map((e) => e.path);
}

export function openCodeWhere({ harness, app, dbEnv }: Family): Where {
  const databases = databasesOf(app);
  return {
    harness,
    defaultRoots(env, home) {
      const data = join(env.XDG_DATA_HOME || join(home, '.local', 'share'), app);
      // A database named by the environment is a root of its own: a root may be a database file.
      const named = env[dbEnv];
      const extra = named && named !== ':memory:' ? [isAbsolute(named) ? named : join(data, named)] : [];
      return [data, ...extra];
    },
    // The JSON storage is not watched (a tree of a file per part would exhaust inotify watches):
    // rescans read it.
    watchPaths: () => [],
    // The databases and their write-ahead logs: rows land in the `-wal` first.
    watchFiles: (root) => {
      const dbs = isFile(root) ? [root] : [...new Set([join(root, `${app}.db`), ...databases(root)])];
      return dbs.flatMap((db) => [db, `${db}-wal`]);
    },
  };
}

export const opencode = openCodeWhere(OPENCODE);
