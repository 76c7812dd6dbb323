// Where Factory Droid's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const droid: Where = {
  harness: 'droid',
  defaultRoots: (_env, home) => [join(home, '.factory', 'sessions')],
  watchPaths: (root) => [root],
};
