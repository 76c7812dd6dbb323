// Where TRAE CLI (`traex`, ByteDance's closed fork of Codex) keeps its rollouts: Codex's layout
// under its own root, `~/.trae/cli` (its parser, reader.ts, is loaded once a root is there).

import { basename, join } from 'node:path';
import type { Where } from '../reader.js';
import { ROLLOUT } from '../codex/where.js';

export const traeCli: Where = {
  harness: 'trae-cli',
  // No home variable of TRAE's own is known (`TRAEX_SESSIONS_DIR` is a peer reader's setting).
  defaultRoots: (_env, home) => [join(home, '.trae', 'cli')],
  watchPaths: (root) => [join(root, 'sessions'), join(root, 'archived_sessions')],
  sessionOfOpenFile: (path) => ROLLOUT.exec(basename(path))?.[1],
};
