// Where Aider's chat histories are (its parser, reader.ts, is loaded once a root is there).

import { dirname, join, sep } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import type { SessionFile, Where } from '../reader.js';

const FILE = '.aider.chat.history.md';
// Folder levels below a root searched for history files (~/src/org/repo is 3).
const DEPTH = 4;

const history = (path: string): SessionFile => ({ path, sessionId: path });

export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  const search = (dir: string, depth: number) => {
    for (const e of listDir(dir)) {
      if (e.isFile && e.name === FILE) files.push(history(e.path));
      else if (e.isDirectory && depth < DEPTH && !e.name.startsWith('.') && e.name !== 'node_modules') search(e.path, depth + 1);
    }
  };
  search(root, 0);
  return files;
}

/**
 * The history of an Aider working in `cwd`: Aider writes it at the top of the git repository it
 * runs in, else in its folder, so the folder and each above it, up to the root, at any depth.
 */
export function filesNear(cwd: string, root: string): SessionFile[] {
  const files: SessionFile[] = [];
  if (cwd !== root && !cwd.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) return files;
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (isFile(join(dir, FILE))) files.push(history(join(dir, FILE)));
    if (dir === root || dirname(dir) === dir) return files;
  }
}

export const aider: Where = {
  harness: 'aider',
  defaultRoots: (_env, home) => [home],
  // The history files found are watched one by one (their folders are repositories, not watched
  // whole); new ones are found by the rescan's search, or where an Aider process works.
  watchPaths: () => [],
  filesNear,
};
