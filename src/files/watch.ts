// Folders watched for changes with the kernel's own notification (inotify on Linux: one watch per
// folder, node's fs.watch), told of every change to an entry, in order. chokidar, used before,
// held about 6 KB of heap per folder (1,000 session folders: 6 MB of an exporter's 80) and dropped
// a file's second change within 50 ms of its first (a permission asked, then granted).
//
// A folder made below a watched one is watched from then on (to the watcher's depth), and one
// removed is let go. What is written in a new folder before its watch starts is the caller's to
// read: it is told of the folder itself.

import { watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';
import { isDirectory, listDir } from './dir.js';

// Errors that mean the folder is not there (any more) or not ours to read: nothing to watch.
const UNWATCHABLE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

export class FolderWatcher {
  /** Each folder watched, with how many levels of folders below it are watched too. */
  private readonly folders = new Map<string, { watcher: FSWatcher; depth: number }>();

  /**
   * `depth`: the levels of subfolders watched below each folder added (0: the folder's own entries).
   * `changed`: called with the path of each entry created, changed or removed (or of a folder whose
   * watch ended). `failed`: a folder that could not be watched for another reason (the system's
   * limit of watches reached), or whose watch failed: changes there wait for the next rescan.
   */
  constructor(
    private readonly depth: number,
    private readonly changed: (path: string) => void,
    private readonly failed: (e: Error) => void,
  ) {}

  /** Watches each folder (that exists) and its subfolders. */
  add(folders: readonly string[]): void {
    for (const f of folders) this.watch(f, this.depth);
  }

  /** Stops watching each folder and the folders below it. */
  unwatch(folders: readonly string[]): void {
    for (const f of folders) this.forget(f);
  }

  close(): void {
    for (const { watcher } of this.folders.values()) watcher.close();
    this.folders.clear();
  }

  private watch(folder: string, depth: number): void {
    if (this.folders.has(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (event, name) => this.event(folder, event, name));
    } catch (e) {
      if (!UNWATCHABLE.has((e as NodeJS.ErrnoException).code ?? '')) this.failed(e as Error);
      return;
    }
    watcher.on('error', (e) => {
      this.forget(folder);
      this.failed(e);
      this.changed(folder);
    });
    this.folders.set(folder, { watcher, depth });
    if (depth > 0) for (const e of listDir(folder)) if (e.isDirectory) this.watch(e.path, depth - 1);
  }

  private event(folder: string, event: string, name: string | null): void {
    const at = this.folders.get(folder);
    if (!at) return;
    const path = name === null ? folder : join(folder, name);
    // An entry made, removed or renamed ('rename'): a folder to watch or to let go.
    if (event === 'rename' && path !== folder) {
      if (this.folders.has(path)) {
        if (!isDirectory(path)) this.forget(path);
      } else if (at.depth > 0 && isDirectory(path)) this.watch(path, at.depth - 1);
    }
    this.changed(path);
  }

  /** Stops watching `folder` and every folder below it. */
  private forget(folder: string): void {
    const below = `${folder}${sep}`;
    for (const [f, { watcher }] of this.folders) {
      if (f !== folder && !f.startsWith(below)) continue;
      watcher.close();
      this.folders.delete(f);
    }
  }
}
