// Kilo Code's CLI is a fork of OpenCode that keeps the same database schema under its own name:
// `~/.local/share/kilo/kilo.db` (or `kilo-<channel>.db`, or KILO_DB). Before Kilo 7 moved it there
// too, its VS Code extension (`kilocode.kilo-code`, a fork of Roo Code) kept tasks in each
// editor's global storage, read as the Cline family's (vscode-tasks/): the same harness, so one
// reader of both.

import { openCodeFamily } from '../opencode/reader.js';
import { withExtensionTasks } from '../vscode-tasks/reader.js';
import { KILO, KILO_EXTENSION } from './where.js';

export const kilo = withExtensionTasks(openCodeFamily(KILO), KILO_EXTENSION);
