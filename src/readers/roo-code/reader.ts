// Roo Code, a VS Code extension forked from Cline: its tasks in each editor's global storage
// (`rooveterinaryinc.roo-cline`), read as the Cline family's (vscode-tasks/). Since 3.29.5 its
// requests' `tokensIn` holds the cache reads and writes.

import { extensionTasks } from '../vscode-tasks/reader.js';

export const rooCode = extensionTasks({ harness: 'roo-code', extension: 'rooveterinaryinc.roo-cline', wholePrompt: true, settings: 'roo-cline' });
