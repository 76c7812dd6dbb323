// Where Junie's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const junie: Where = {
  harness: 'junie',
  defaultRoots: (_env, home) => [join(home, '.junie', 'sessions')],
  watchPaths: (root) => [root],
};
