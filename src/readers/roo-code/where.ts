// Where Roo Code's extension keeps its tasks (the parser, reader.ts, is loaded once a root is there).

import { extensionTasksWhere, type TaskFamily } from '../vscode-tasks/where.js';

export const ROO_CODE: TaskFamily = {
  harness: 'roo-code',
  extension: 'rooveterinaryinc.roo-cline',
  wholePrompt: true,
  settings: 'roo-cline',
};

export const rooCode = extensionTasksWhere(ROO_CODE);
