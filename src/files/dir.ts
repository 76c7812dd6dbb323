// What readers ask of the file system besides reading records. Directory listings for rescans: a
// folder is listed again only when its mtime says entries were added or removed (appending to a
// file does not change it), so a rescan with no new session files costs one stat per folder and
// per file.
//
// Every path here comes from a harness's folders, where anything can be: a file is opened only
// when it is a regular file (files/open.ts).
// A symbolic link counts as what it points to (a dotfiles manager links folders and files into
// place, a history moved to another disk is linked back), except a folder it is inside of (a loop).

import {
  closeSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { dirname, sep } from 'node:path';
import { openRegular, openRegularSized } from './open.js';

export interface Entry {
  name: string;
  path: string;
  isFile: boolean;
  isDirectory: boolean;
  /** A symbolic link (`isFile` and `isDirectory` say what it points to). */
  isLink?: true;
}

// A listing taken within this long of its folder's last change may have missed an entry created
// in the same clock tick (coarse timestamps on some file systems): it is not reused.
const SETTLE_MS = 2000;
const cache = new Map<string, { mtimeMs: number; entries: Entry[] }>();

/** Folders that could not be listed (other than for not existing), while `listingFailures` runs. */
let failed: Map<string, string> | undefined;

/**
 * Runs `f` (a reader's listing, synchronous) and returns the folders it could not list, with the
 * error: a folder the exporter may not read is a failure to report, not an empty folder. Readers
 * keep calling `listDir` without knowing who listens.
 */
export function listingFailures<T>(f: () => T): { value: T; failures: Map<string, string> } {
  const outer = failed;
  failed = new Map();
  try {
    return { value: f(), failures: failed };
  } finally {
    failed = outer;
  }
}

function listingFailed(dir: string, e: unknown): void {
  const code = (e as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT') failed?.set(dir, code ?? String(e));
}

/** The entries of a folder, or none when it cannot be read (reported to `listingFailures`). */
export function listDir(dir: string): Entry[] {
  let mtimeMs: number;
  try {
    // A missing folder is common (a session without subagents): no error built for it, that costs more than the stat.
    const st = statSync(dir, { throwIfNoEntry: false });
    if (!st) {
      cache.delete(dir);
      return [];
    }
    mtimeMs = st.mtimeMs;
  } catch (e) {
    cache.delete(dir);
    listingFailed(dir, e);
    return [];
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === mtimeMs) return hit.entries;
  let entries: Entry[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).map((e) => entry(dir, e));
  } catch (e) {
    listingFailed(dir, e);
    return [];
  }
  if (Date.now() - mtimeMs > SETTLE_MS) cache.set(dir, { mtimeMs, entries });
  else cache.delete(dir);
  return entries;
}

function entry(dir: string, e: Dirent): Entry {
  const path = `${dir}${sep}${e.name}`;
  if (!e.isSymbolicLink()) return { name: e.name, path, isFile: e.isFile(), isDirectory: e.isDirectory() };
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    // A link to nothing, or round to itself, is nothing; one to what may not be reached, a failure.
    if ((e as NodeJS.ErrnoException).code === 'EACCES') listingFailed(path, e);
  }
  const isDirectory = st?.isDirectory() === true && !inside(dir, path);
  return { name: e.name, path, isFile: st?.isFile() === true, isDirectory, isLink: true };
}

/** Whether `dir` is the folder `link` points to, or inside it: following the link would go round. */
function inside(dir: string, link: string): boolean {
  try {
    const target = realpathSync(link);
    const real = realpathSync(dir);
    return real === target || real.startsWith(target.endsWith(sep) ? target : `${target}${sep}`);
  } catch {
    return true;
  }
}

/**
 * A listed file's stat, or undefined when it is not there (any more). One that may not be reached
 * fails its folder (reported to `listingFailures`): a folder may be listed and not searched (a
 * chmod, and a listing kept from before it, since a chmod leaves the folder's mtime as it was).
 */
export function statListed(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    listingFailed(dirname(path), e);
    return undefined;
  }
}

export function isFile(path: string): boolean {
  return fileStat(path) !== undefined;
}

/**
 * A file's stat when it is a file, else undefined: a listing that has to stat a file to know it is
 * there hands this on with it (`SessionFile.stat`), so that a rescan costs one stat per file.
 */
export function fileStat(path: string): Stats | undefined {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A regular file's whole content (throws for anything else, as `openRegular`). */
export function readRegular(path: string): Buffer {
  const fd = openRegular(path);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The last `bytes` bytes of a regular file (all of a smaller one), or undefined when it cannot be read. */
export function readTail(path: string, bytes: number): Buffer | undefined {
  try {
    const { fd, size } = openRegularSized(path);
    try {
      const buf = Buffer.alloc(Math.min(size, bytes));
      return buf.subarray(0, readSync(fd, buf, 0, buf.length, size - buf.length));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Small files (`readText`) parsed again only when their stat changed: an index every session's
 * read consults (Cline's task history) is read once per change, not once per session. One changed
 * within SETTLE_MS of now may change again in the same clock tick, unseen: it is not kept.
 */
export class ParsedFiles<T> {
  private readonly kept = new Map<string, { stamp: string; value: T }>();
  /** How many times a file was read and parsed (a kept one is neither). */
  parses = 0;

  constructor(private readonly parse: (text: string | undefined) => T) {}

  get(path: string): T {
    const st = fileStat(path);
    const stamp = st && `${st.ino}:${st.size}:${st.mtimeMs}`;
    const hit = this.kept.get(path);
    if (hit && hit.stamp === stamp) return hit.value;
    this.parses++;
    const value = this.parse(st ? readText(path) : undefined);
    if (stamp && Date.now() - st.mtimeMs > SETTLE_MS) this.kept.set(path, { stamp, value });
    else this.kept.delete(path);
    return value;
  }
}

// A "small" file larger than this is not one the harness wrote as a marker or a record.
const MAX_TEXT = 16 << 20;

/** A small file's bytes (a marker, a registry, a JSON record), or undefined when it cannot be read. */
export function readSmall(path: string): Buffer | undefined {
  try {
    const { fd, size } = openRegularSized(path);
    try {
      return size > MAX_TEXT ? undefined : readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** A small file's text, as `readSmall` reads it. */
export function readText(path: string): string | undefined {
  return readSmall(path)?.toString('utf8');
}
