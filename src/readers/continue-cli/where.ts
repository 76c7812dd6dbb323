// Where Continue CLI's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const continueCli: Where = {
  harness: 'continue-cli',
  // The sessions folder only: `~/.continue` also holds config.yaml, with API keys.
  defaultRoots: (env, home) => [join(env.CONTINUE_GLOBAL_DIR || join(home, '.continue'), 'sessions')],
  watchPaths: (root) => [root],
};
