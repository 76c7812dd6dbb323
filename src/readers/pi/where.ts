// Where pi's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const pi: Where = {
  harness: 'pi',
  defaultRoots(env, home) {
    // The sessions folder only: its parent holds auth.json and models.json (API keys).
    const roots = [env.PI_CODING_AGENT_DIR, join(home, '.pi', 'agent')].filter((r): r is string => Boolean(r));
    return [...new Set(roots.map((r) => join(r, 'sessions')))];
  },
  watchPaths: (root) => [root],
};
