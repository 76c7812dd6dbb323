// Where Gemini CLI's chats are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';
import { defaultRoots } from './paths.js';

export const geminiCli: Where = {
  harness: 'gemini-cli',
  defaultRoots,
  watchPaths: (root) => [join(root, 'tmp')],
};
