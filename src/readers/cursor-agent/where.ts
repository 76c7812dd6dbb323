// Where Cursor agent's transcripts are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const cursorAgent: Where = {
  harness: 'cursor-agent',
  defaultRoots: (env, home) => [
    ...new Set([env.CURSOR_CONFIG_DIR, join(home, '.cursor')].filter((r): r is string => Boolean(r))),
  ],
  watchPaths: (root) => [join(root, 'projects')],
};
