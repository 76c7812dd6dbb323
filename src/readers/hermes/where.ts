// Where Hermes's databases are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import type { SessionFile, Where } from '../reader.js';

const DB = 'state.db';

/** The profiles' databases of a Hermes home: the default profile's, then the named ones'. */
export function databases(root: string): SessionFile[] {
  const named = listDir(join(root, 'profiles'))
    .filter((e) => e.isDirectory)
    .map((e) => ({ path: join(e.path, DB), sessionId: e.name }));
  return [{ path: join(root, DB), sessionId: 'default' }, ...named].filter((f) => isFile(f.path));
}

export const hermes: Where = {
  harness: 'hermes',
  // The contract's Hermes reader shows a failed turn as done: Hermes's picker marks no errors.
  facts: { noErrorStatus: true },
  // Windows: `%LOCALAPPDATA%\hermes` by default (LOCALAPPDATA is set on Windows alone).
  defaultRoots: (env, home) => [
    ...new Set([
      env.HERMES_HOME || (env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'hermes') : join(home, '.hermes')),
      join(home, '.hermes'),
    ]),
  ],
  // A new profile's folder shows up in `profiles/`; its database is watched from the next scan.
  watchPaths: () => [],
  watchFiles: (root) =>
    [join(root, DB), ...databases(root).map((f) => f.path)]
      .filter((p, i, all) => all.indexOf(p) === i)
      .flatMap((db) => [db, `${db}-wal`]),
};
