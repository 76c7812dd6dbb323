// Kilo Code's CLI is a fork of OpenCode that keeps the same database schema under its own name:
// `~/.local/share/kilo/kilo.db` (or `kilo-<channel>.db`, or KILO_DB). Before Kilo 7 moved it there
// too, its VS Code extension (`kilocode.kilo-code`, a fork of Roo Code) kept tasks in each
// editor's global storage, read as the Cline family's (vscode-tasks/): the same harness, so one
// reader of both.

import { openCodeFamily } from '../opencode/reader.js';
import { withExtensionTasks } from '../vscode-tasks/reader.js';

export const kilo = withExtensionTasks(openCodeFamily({ harness: 'kilo', app: 'kilo', dbEnv: 'KILO_DB' }), {
  harness: 'kilo', extension: 'kilocode.kilo-code', wholePrompt: true, settings: 'kilo-code',
});
