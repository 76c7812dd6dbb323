// Where Qoder CLI (`qodercli`, Alibaba's) keeps its transcripts: Claude Code's layout under its
// own root, `$QODER_CONFIG_DIR`, else `~/.qoder` (the international build) and `~/.qoder-cn` (the
// China build) (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const qoder: Where = {
  harness: 'qoder',
  defaultRoots: (env, home) =>
    env.QODER_CONFIG_DIR ? [env.QODER_CONFIG_DIR] : [join(home, '.qoder'), join(home, '.qoder-cn')],
  watchPaths: (root) => [join(root, 'projects')],
};
