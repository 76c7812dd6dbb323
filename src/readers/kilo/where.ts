// Where Kilo keeps its files: the CLI's databases, as OpenCode's, and its VS Code extension's tasks
// before Kilo 7 (the parser, reader.ts, is loaded once a root is there).

import { openCodeWhere, type Family } from '../opencode/where.js';
import { withExtensionTaskRoots, type TaskFamily } from '../vscode-tasks/where.js';

export const KILO: Family = { harness: 'kilo', app: 'kilo', dbEnv: 'KILO_DB' };
export const KILO_EXTENSION: TaskFamily = {
  harness: 'kilo',
  extension: 'kilocode.kilo-code',
  wholePrompt: true,
  settings: 'kilo-code',
};

export const kilo = withExtensionTaskRoots(openCodeWhere(KILO), KILO_EXTENSION);
