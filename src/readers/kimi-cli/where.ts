// Where Kimi CLI's sessions are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const kimiCli: Where = {
  harness: 'kimi-cli',
  // The sessions folder only: `~/.kimi` also holds config.toml, with API keys.
  defaultRoots: (env, home) => [join(env.KIMI_SHARE_DIR || join(home, '.kimi'), 'sessions')],
  watchPaths: (root) => [root],
};
