// Where Aider's chat histories are (its parser, reader.ts, is loaded once a root is there).

import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import { shortHash } from '../../session/labels.js';
import type { SessionFile, Where } from '../reader.js';

const FILE = '.aider.chat.history.md';
// Folder levels below a root searched for history files (~/src/org/repo is 3).
const DEPTH = 4;
// What one search lists at most: a home folder of any size, or links that make its folders
// endless, costs a bounded search every rescan (what lies beyond is found where an Aider works).
const MAX_FOLDERS = 50_000;
const MAX_ENTRIES = 1_000_000;

/**
 * The id of a history's sessions: a short hash of its path (a path, the user's name in it, is no
 * id to export), and of each session the header time Aider wrote, `#2026-11-30T10:00:00`.
 */
export function sessionIdOf(path: string, started?: string): string {
  const file = shortHash(path, 12);
  return started === undefined ? file : `${file}#${started.replace(' ', 'T')}`;
}

// The ids earlier releases gave: the history's path, and `#` and the header time as written.
const PATH_ID = new RegExp(`^(.*${FILE.replaceAll('.', '\\.')})(?:#(.*))?$`, 's');

/** A session id an earlier release gave (a path), as this one gives it; undefined for one of this release. */
export function renamedSession(id: string): string | undefined {
  const old = isAbsolute(id) ? PATH_ID.exec(id) : null;
  return old ? sessionIdOf(old[1]!, old[2]) : undefined;
}

const history = (path: string): SessionFile => ({ path, sessionId: sessionIdOf(path) });

/** A folder's identity (device and inode), the same whatever link it is reached by; undefined when it is not there. */
function folderId(dir: string): string | undefined {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    return st && `${st.dev}:${st.ino}`;
  } catch {
    return undefined; // out of reach: its listing reports it
  }
}

/**
 * The history files under `root`, searched level by level: each real folder is listed once, at the
 * least depth any path reaches it, by its own path before a link's (links may make the tree
 * endless); at most `budget.folders` folders and `budget.entries` entries. It yields after each
 * folder listed, so that the caller can answer scrapes between folders.
 */
export function* searchFiles(
  root: string,
  budget = { folders: MAX_FOLDERS, entries: MAX_ENTRIES },
): Generator<void, SessionFile[], void> {
  const files: SessionFile[] = [];
  const listed = new Set<string>();
  let entries = 0;
  let level = [root];
  for (let depth = 0; level.length > 0 && depth <= DEPTH; depth++) {
    const own: string[] = [];
    const linked: string[] = [];
    for (const dir of level) {
      const id = folderId(dir);
      if (id === undefined || listed.has(id)) continue;
      if (listed.size >= budget.folders || entries >= budget.entries) return files;
      listed.add(id);
      const list = listDir(dir);
      entries += list.length;
      for (const e of list) {
        if (e.isFile && e.name === FILE) files.push(history(e.path));
        else if (e.isDirectory && !e.name.startsWith('.') && e.name !== 'node_modules')
          (e.isLink ? linked : own).push(e.path);
      }
      yield;
    }
    level = [...own, ...linked];
  }
  return files;
}

/** `searchFiles` in one go. */
export function listFiles(root: string): SessionFile[] {
  const search = searchFiles(root);
  for (;;) {
    const step = search.next();
    if (step.done) return step.value;
  }
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
