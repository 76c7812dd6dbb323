// Where Cline keeps its files: the CLI's sessions, and its VS Code extension's tasks (the parser,
// reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import type { Where } from '../reader.js';
import { withExtensionTaskRoots, type TaskFamily } from '../vscode-tasks/where.js';

export const CLINE_EXTENSION: TaskFamily = {
  harness: 'cline',
  extension: 'saoudrizwan.claude-dev',
  wholePrompt: false,
};

/** The CLI's sessions alone. */
export const cliSessions: Where = {
  harness: 'cline',
  defaultRoots: (env, home) => [join(env.CLINE_DATA_DIR || join(home, '.cline', 'data'), 'sessions')],
  watchPaths: (root) => [root],
};

export const cline = withExtensionTaskRoots(cliSessions, CLINE_EXTENSION);
