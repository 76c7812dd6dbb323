// Where Amp's threads are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const amp: Where = {
  harness: 'amp',
  defaultRoots(env, home) {
    const data = env.AMP_DATA_DIR
      ? env.AMP_DATA_DIR.split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'amp')];
    // The threads folder only: the data folder also holds the device id and the login.
    return [...new Set(data.map((d) => join(d, 'threads')))];
  },
  watchPaths: (root) => [root],
};
