// Where the VS Code extensions of the Cline family keep their tasks (paths.ts), as a harness's
// `where.ts` names them: the parser (reader.ts) is loaded once a root is there.

import type { Where } from '../reader.js';
import type { HarnessId } from '../../session/types.js';
import { editorTaskRoots, isTaskRoot } from './paths.js';

export interface TaskFamily {
  harness: HarnessId;
  /** The extension's id, its folder under `globalStorage`. */
  extension: string;
  /** Roo Code and Kilo Code: `tokensIn` is the whole prompt (since 3.29.5 and 4.119.0). */
  wholePrompt: boolean;
  /** The settings key that moves the extension's storage (`<key>` of `<key>.customStoragePath`), where it has one. */
  settings?: string;
}

/** The `tasks` folders of a family member's extension, in every editor's user dir. */
function taskRoots(family: TaskFamily, env: NodeJS.ProcessEnv, home: string): string[] {
  return editorTaskRoots(env, home, family.extension, family.settings && `${family.settings}.customStoragePath`);
}

/** A harness whose only files are its extension's tasks (Roo Code). */
export function extensionTasksWhere(family: TaskFamily): Where {
  return {
    harness: family.harness,
    defaultRoots: (env, home) => taskRoots(family, env, home),
    watchPaths: (root) => [root],
  };
}

/** A harness that reads its extension's tasks too: a root that is a `tasks` folder is the extension's, any other its own. */
export function withExtensionTaskRoots(where: Where, family: TaskFamily): Where {
  return {
    ...where,
    defaultRoots: (env, home) => [...where.defaultRoots(env, home), ...taskRoots(family, env, home)],
    watchPaths: (root) => (isTaskRoot(root) ? [root] : where.watchPaths(root)),
    watchFiles: (root) => (isTaskRoot(root) ? [] : (where.watchFiles?.(root) ?? [])),
  };
}
