// Where Antigravity CLI's conversations are (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const antigravityCli: Where = {
  harness: 'antigravity-cli',
  defaultRoots(env, home) {
    const gemini = env.GEMINI_HOME || join(home, '.gemini');
    // The CLI's folder, and the ACP server's (the same format).
    return [join(gemini, 'antigravity-cli'), join(gemini, 'antigravity-acp')];
  },
  watchPaths: (root) => [join(root, 'conversations')],
  // A new prompt shows in the history before the conversation's database changes.
  watchFiles: (root) => [join(root, 'history.jsonl')],
};
