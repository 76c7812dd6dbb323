// Where Grok Build (xAI's `grok`) keeps its sessions: `$GROK_HOME` or `~/.grok` on every OS (its
// parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const grok: Where = {
  harness: 'grok',
  defaultRoots: (env, home) => [env.GROK_HOME || join(home, '.grok')],
  watchPaths: (root) => [join(root, 'sessions')],
};
