// Where VS Code and its forks keep an extension's tasks: `<user dir>/User/globalStorage/<extension
// id>/tasks/<task id>/`, for each editor's user dir on Linux (`$XDG_CONFIG_HOME` or `~/.config`)
// and macOS (`~/Library/Application Support`), and for VS Code's remote server (`~/.vscode-server/data`).

import { basename, dirname, join } from 'node:path';

const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];
const REMOTE = ['.vscode-server', '.vscode-server-insiders'];

/** The `tasks` folder of an extension in every editor's user dir (those not installed do not exist). */
export function editorTaskRoots(env: NodeJS.ProcessEnv, home: string, extension: string): string[] {
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  const userDirs = [
    ...EDITORS.map((e) => join(config, e)),
    ...EDITORS.map((e) => join(home, 'Library', 'Application Support', e)),
    ...REMOTE.map((r) => join(home, r, 'data')),
  ];
  return userDirs.map((d) => join(d, 'User', 'globalStorage', extension, 'tasks'));
}

/**
 * A root that is an extension's `tasks` folder (a harness reading other files too, Cline's CLI
 * sessions or Kilo's database, tells its roots apart by this).
 */
export function isTaskRoot(root: string): boolean {
  return basename(root) === 'tasks';
}

/** The extension's storage folder a task's folder is in (`<extension id>/`, holding `state/`). */
export function extensionDir(taskFile: string): string {
  return dirname(dirname(dirname(taskFile)));
}
