// Where Aider's chat histories are (its parser, reader.ts, is loaded once a root is there).

import { listDir } from '../../files/dir.js';
import type { SessionFile, Where } from '../reader.js';

const FILE = '.aider.chat.history.md';
// Folder levels below a root searched for history files (~/src/org/repo is 3).
const DEPTH = 4;

export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  const search = (dir: string, depth: number) => {
    for (const e of listDir(dir)) {
      if (e.isFile && e.name === FILE) files.push({ path: e.path, sessionId: e.path });
      else if (e.isDirectory && depth < DEPTH && !e.name.startsWith('.') && e.name !== 'node_modules') search(e.path, depth + 1);
    }
  };
  search(root, 0);
  return files;
}

export const aider: Where = {
  harness: 'aider',
  defaultRoots: (_env, home) => [home],
  // The history files found are watched one by one (their folders are repositories, not watched
  // whole); new ones are found by the rescan.
  watchPaths: () => [],
  watchFiles: (root) => listFiles(root).map((f) => f.path),
};
