// Where VS Code and its forks keep an extension's tasks: `<user dir>/User/globalStorage/<extension
// id>/tasks/<task id>/`, for each editor's user dir on Linux (`$XDG_CONFIG_HOME` or `~/.config`)
// macOS (`~/Library/Application Support`) and Windows (`%APPDATA%`), and for VS Code's remote server (`~/.vscode-server/data`).
// Roo Code and Kilo Code keep them in `<customStoragePath>/tasks/` instead where the editor's
// settings set one (`roo-cline.customStoragePath`, `kilo-code.customStoragePath`: the extensions'
// `getStorageBasePath`), read from each user dir's `User/settings.json` (JSONC) when the roots are.

import { basename, dirname, isAbsolute, join } from 'node:path';
import { readText } from '../../files/dir.js';
import { jsonValue, obj, str } from '../fields.js';
import { withoutComments } from '../mcp.js';

const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];
const REMOTE = ['.vscode-server', '.vscode-server-insiders'];

/**
 * The `tasks` folder of an extension in every editor's user dir (those not installed do not exist),
 * and where an editor's settings move it (`setting`: the extension's `customStoragePath` key).
 */
export function editorTaskRoots(env: NodeJS.ProcessEnv, home: string, extension: string, setting?: string): string[] {
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  const userDirs = [
    ...EDITORS.map((e) => join(config, e)),
    ...EDITORS.map((e) => join(home, 'Library', 'Application Support', e)),
    // Windows: `%APPDATA%\<editor>` (APPDATA is set on Windows alone).
    ...(env.APPDATA ? EDITORS.map((e) => join(env.APPDATA!, e)) : []),
    ...REMOTE.map((r) => join(home, r, 'data')),
  ];
  const moved = setting
    ? userDirs.flatMap((d) => {
        // Settings that do not parse (an editor writing them, a typo) move nothing.
        const custom = str(
          obj(jsonValue(withoutComments(readText(join(d, 'User', 'settings.json')) ?? '')))?.[setting],
        );
        return custom && isAbsolute(custom) ? [join(custom, 'tasks')] : [];
      })
    : [];
  return [...userDirs.map((d) => join(d, 'User', 'globalStorage', extension, 'tasks')), ...new Set(moved)];
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
