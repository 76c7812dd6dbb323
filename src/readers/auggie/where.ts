// Where Auggie's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const auggie: Where = {
  harness: 'auggie',
  // The sessions folder only: `~/.augment` also holds the login.
  defaultRoots: (_env, home) => [join(home, '.augment', 'sessions')],
  watchPaths: (root) => [root],
};
