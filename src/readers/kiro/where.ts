// Where Kiro CLI (`kiro-cli`, AWS's successor of Amazon Q Developer CLI) keeps its sessions:
// `~/.kiro/sessions/cli/<uuid>.{jsonl,json,history,lock}` on every OS (its parser, reader.ts, is
// loaded once a root is there). `KIRO_HOME` is a peer reader's reading of a Kiro setting, not
// verified in Kiro: it is honoured in place of `~/.kiro`. The root is the sessions' folder itself:
// the rest of `~/.kiro` (settings, MCP servers' settings) is never needed, nor mounted.

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const kiro: Where = {
  harness: 'kiro',
  defaultRoots: (env, home) => [join(env.KIRO_HOME || join(home, '.kiro'), 'sessions', 'cli')],
  watchPaths: (root) => [root],
};
