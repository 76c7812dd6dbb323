// Where the OpenHands CLI keeps its conversations: `$OPENHANDS_CONVERSATIONS_DIR`, else
// `conversations/` under `$OPENHANDS_PERSISTENCE_DIR` or `~/.openhands` (`%USERPROFILE%\.openhands`
// on Windows, as `expanduser` gives it); its parser, reader.ts, is loaded once a root is there.

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const openhands: Where = {
  harness: 'openhands',
  defaultRoots: (env, home) => [
    env.OPENHANDS_CONVERSATIONS_DIR || join(env.OPENHANDS_PERSISTENCE_DIR || join(home, '.openhands'), 'conversations'),
  ],
  watchPaths: (root) => [root],
};
