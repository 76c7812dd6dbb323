// Where Kodelet's database is (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const dbOf = (root: string) => join(root, 'storage.db');

export const kodelet: Where = {
  harness: 'kodelet',
  defaultRoots: (env, home) => [env.KODELET_BASE_PATH || join(home, '.kodelet')],
  watchPaths: () => [],
  watchFiles: (root) => [dbOf(root), `${dbOf(root)}-wal`],
};
