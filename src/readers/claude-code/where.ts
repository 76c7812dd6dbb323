// Where Claude Code's files are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';
import { defaultRoots } from './paths.js';

export const claudeCode: Where = {
  harness: 'claude-code',
  defaultRoots,
  watchPaths: (root) => [join(root, 'projects'), join(root, 'sessions')],
};
