// Where GitHub Copilot CLI's files are (its parser, reader.ts, is loaded once a root is there).

import type { Where } from '../reader.js';
import { defaultRoots, watchFiles, watchPaths } from './paths.js';

export const copilotCli: Where = {
  harness: 'copilot-cli',
  // permission.requested and permission.completed: an approval is over once its answer is written
  // (a hook's permission event stands until the file records something after it).
  facts: { recordsPermissions: true },
  defaultRoots,
  watchPaths,
  watchFiles,
};
