// What readers ask of the file system besides reading records. Directory listings for rescans: a
// folder is listed again only when its mtime says entries were added or removed (appending to a
// file does not change it), so a rescan with no new session files costs one stat per folder and
// per file.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { sep } from 'node:path';

export interface Entry {
  name: string;
  path: string;
  isFile: boolean;
  isDirectory: boolean;
}

// A listing taken within this long of its folder's last change may have missed an entry created
// in the same clock tick (coarse timestamps on some file systems): it is not reused.
const SETTLE_MS = 2000;
const cache = new Map<string, { mtimeMs: number; entries: Entry[] }>();

/** The entries of a folder, or none when it cannot be read. */
export function listDir(dir: string): Entry[] {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(dir).mtimeMs;
  } catch {
    cache.delete(dir);
    return [];
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === mtimeMs) return hit.entries;
  let entries: Entry[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).map((e) => ({
      name: e.name, path: `${dir}${sep}${e.name}`, isFile: e.isFile(), isDirectory: e.isDirectory(),
    }));
  } catch {
    return [];
  }
  if (Date.now() - mtimeMs > SETTLE_MS) cache.set(dir, { mtimeMs, entries });
  else cache.delete(dir);
  return entries;
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A small file's text (a marker, a registry, a JSON record), or undefined when it cannot be read. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
