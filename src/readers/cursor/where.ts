// Where Cursor's editor keeps its chats (Agent, Ask and Plan panes, once "Composer"): its VS
// Code-style user dir, `~/.config/Cursor` (`$XDG_CONFIG_HOME/Cursor`), `~/Library/Application
// Support/Cursor` or `%APPDATA%\Cursor`, the root; every chat of every workspace is in
// `User/globalStorage/state.vscdb`, the folders of its windows in `User/workspaceStorage/<id>/`
// (its parser, reader.ts, is loaded once a root is there). Cursor's agent CLI (`cursor-agent`) is
// another harness, under `~/.cursor`.

import { join } from 'node:path';
import { isFile } from '../../files/dir.js';
import type { SessionFile, Where } from '../reader.js';

/** The global state database under a user dir. */
export const globalDatabase = (userDir: string): string => join(userDir, 'User', 'globalStorage', 'state.vscdb');

/** The workspaces' folder under a user dir. */
export const workspaceStorage = (userDir: string): string => join(userDir, 'User', 'workspaceStorage');

/** The editor's user dirs for a home, on every OS. */
function userDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  return [
    join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Cursor'),
    join(home, 'Library', 'Application Support', 'Cursor'),
    // Windows: `%APPDATA%\Cursor` (APPDATA is set on Windows alone).
    ...(env.APPDATA ? [join(env.APPDATA, 'Cursor')] : []),
  ];
}

/**
 * The editor's global databases that exist for a home (its default user dirs, `%APPDATA%` as
 * Windows puts it by default): where the agent CLI's reader looks up the chats that are the editor's.
 */
export function editorDatabases(home: string): string[] {
  return [...userDirs({}, home), join(home, 'AppData', 'Roaming', 'Cursor')].map(globalDatabase).filter(isFile);
}

export const cursor: Where = {
  harness: 'cursor',
  defaultRoots: userDirs,
  // The workspaces' databases change with every move in the editor's UI: they are looked at when a
  // chat's folder is not in the global database, not watched.
  watchPaths: () => [],
  watchFiles: (root) => [globalDatabase(root), `${globalDatabase(root)}-wal`],
};

/** The global database, where it exists; the store's own id is the user dir's. */
export function databases(root: string): SessionFile[] {
  const path = globalDatabase(root);
  return isFile(path) ? [{ path, sessionId: 'cursor' }] : [];
}
