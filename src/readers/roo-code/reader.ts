// Roo Code, a VS Code extension forked from Cline: its tasks in each editor's global storage
// (`rooveterinaryinc.roo-cline`), read as the Cline family's (vscode-tasks/). Since 3.29.5 its
// requests' `tokensIn` holds the cache reads and writes.

import { extensionTasks } from '../vscode-tasks/reader.js';
import { ROO_CODE } from './where.js';

export const rooCode = extensionTasks(ROO_CODE);
