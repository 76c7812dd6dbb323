// Where Qwen Code's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const qwenCode: Where = {
  harness: 'qwen-code',
  defaultRoots: (env, home) => [
    ...new Set([env.QWEN_RUNTIME_DIR, env.QWEN_HOME, join(home, '.qwen')].filter((r): r is string => Boolean(r))),
  ],
  watchPaths: (root) => [join(root, 'projects')],
};
