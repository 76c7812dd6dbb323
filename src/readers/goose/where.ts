// Where goose's database is (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const dbOf = (root: string) => join(root, 'sessions', 'sessions.db');

export const goose: Where = {
  harness: 'goose',
  // etcetera's app strategy: XDG on Linux and macOS, `%APPDATA%\Block\goose\data` on Windows
  // (APPDATA is set on Windows alone).
  defaultRoots: (env, home) => [
    env.GOOSE_PATH_ROOT
      ? join(env.GOOSE_PATH_ROOT, 'data')
      : env.APPDATA
        ? join(env.APPDATA, 'Block', 'goose', 'data')
        : join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'goose'),
  ],
  watchPaths: () => [],
  watchFiles: (root) => [dbOf(root), `${dbOf(root)}-wal`],
};
