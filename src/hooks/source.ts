// The exporter's side of the hook spool: reads what hooks appended since the last read (the spools
// moved aside first, to their seal: hooks/append.ts) and keeps the freshest hook state of each
// session (on the store). Nothing of it is persisted: the spool itself is what a restart reads
// again (the last spool moved aside, kept as `hooks.jsonl.0`, and the current one: a megabyte or
// two, every session's latest event among them).
//
// The spool's files are the exporter's own, in its state folder: opened only as regular files,
// never through a symbolic link, never blocking (files/open.ts).

import { closeSync, constants, fstatSync, readdirSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openRegular } from '../files/open.js';
import type { HookState } from '../session/types.js';
import { parseSpoolLine, SPOOL_FILE, SPOOL_MAX_BYTES, SPOOL_SEAL, type HookRecord } from './spool.js';

// A spool moved aside, once read to its seal: it replaces the one before, and is read again on start.
const KEPT = `${SPOOL_FILE}.0`;
// At most this much of a file is held at once.
const CHUNK = 2 * SPOOL_MAX_BYTES;
const SEAL_LINE = `${SPOOL_SEAL}\n`;
// Spools moved aside: by a hook (`.<ms>-<pid>-<n>`), kept (`.0`), or by an earlier version (`.1`); not a copy someone made.
const MOVED = /^hooks\.jsonl\.\d+(-\d+-\d+)?$/;
const READ = constants.O_NOFOLLOW;
const SEAL = constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW;

/** Where the freshest hook state of each session goes: the store (`SessionStore.setHook`). */
export interface HookTarget {
  readonly hooks: ReadonlyMap<string, HookState>;
  setHook(key: string, state: HookState): void;
}

export class HookSource {
  private readonly spool: SpoolReader;

  constructor(
    stateDir: string,
    private readonly target: HookTarget,
    opts?: SpoolOptions,
  ) {
    this.spool = new SpoolReader(stateDir, opts);
  }

  /** The file the source follows (for a watcher). */
  get file(): string {
    return this.spool.file;
  }

  /** Reads what was appended; returns whether a session's hook state changed. Never throws. */
  read(): boolean {
    let changed = false;
    this.spool.read((r) => {
      changed = setHook(this.target, `${r.harness}/${r.session}`, r) || changed;
    });
    return changed;
  }
}

export interface SpoolOptions {
  /**
   * Whether spools moved aside are sealed and put away once read (the default); a viewer beside a
   * running exporter leaves them to it, reads them to their end or seal, and looks for them at each read.
   */
  putAway?: boolean;
}

/** Reads each line of the spool once: the spools moved aside (oldest first), then the spool. */
export class SpoolReader {
  readonly file: string;
  /** How far each file was read, by inode: the spool's, and those of the spools moved aside. */
  private readonly offsets = new Map<number, number>();
  /** The spool's inode at the last read; undefined: there was none. */
  private spoolIno?: number;
  /** Whether the moved spools are to be looked for at the next read (the first, or one could not be put away). */
  private look = true;

  private readonly putAway: boolean;

  constructor(
    private readonly stateDir: string,
    opts: SpoolOptions = {},
  ) {
    this.file = join(stateDir, SPOOL_FILE);
    this.putAway = opts.putAway ?? true;
  }

  /** Hands each record appended since the last read to `each`. Never throws. */
  read(each: (r: HookRecord) => void): void {
    const fd = open(this.file, READ);
    try {
      const ino = fd === undefined ? undefined : fstatSync(fd).ino;
      // A spool is moved aside only from the path: while the inode there is the same, none was.
      // With none there, one may have come and been moved since: looked for (hooks set up seldom have none).
      const moved = (this.look || ino === undefined || ino !== this.spoolIno) && this.readMoved(ino, each);
      this.spoolIno = ino;
      // The spool opened was moved since, and read to its seal with the others.
      if (fd === undefined || ino === undefined || moved) return;
      this.offsets.set(ino, readLines(fd, this.offsets.get(ino) ?? 0, each).offset);
    } catch {
      // A read that failed (an I/O error) is tried again at the next.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * Reads the spools moved aside to their seal, sealing each first, and puts each away once read;
   * returns whether the spool of inode `spoolIno` was one of them.
   */
  private readMoved(spoolIno: number | undefined, each: (r: HookRecord) => void): boolean {
    let names: string[];
    try {
      names = readdirSync(this.stateDir)
        .filter((n) => MOVED.test(n))
        .sort();
    } catch {
      names = [];
    }
    const seen = new Set<number>(spoolIno === undefined ? [] : [spoolIno]);
    // The kept one's inode: replaced, it is deleted, and its number may be a new spool's.
    let kept: number | undefined;
    let moved = false;
    this.look = false;
    for (const name of names) {
      const path = join(this.stateDir, name);
      // Sealing writes: where it may not, the file is read as far as it goes, and again later.
      const fd = (this.putAway ? open(path, SEAL) : undefined) ?? open(path, READ);
      if (fd === undefined) continue;
      try {
        const ino = fstatSync(fd).ino;
        seen.add(ino);
        moved ||= ino === spoolIno;
        let at = readLines(fd, this.offsets.get(ino) ?? 0, each);
        if (this.putAway && !at.sealed && sealed(fd)) at = readLines(fd, at.offset, each);
        this.offsets.set(ino, at.offset);
        if (name === KEPT) kept = ino;
        else if (this.putAway && at.sealed && put(path, join(this.stateDir, KEPT))) {
          if (kept !== undefined) this.offsets.delete(kept);
          kept = ino;
        } else this.look = true;
      } finally {
        closeSync(fd);
      }
    }
    for (const ino of this.offsets.keys()) if (!seen.has(ino)) this.offsets.delete(ino);
    // The next spool may take the moved one's inode number once it is freed: looked at again then.
    this.look ||= moved;
    return moved;
  }
}

function open(path: string, flags: number): number | undefined {
  try {
    return openRegular(path, flags);
  } catch {
    return undefined;
  }
}

/** Appends the seal; false where it could not be written. */
function sealed(fd: number): boolean {
  try {
    // After a newline: the last line may be torn (a write cut short), the seal is a line of its own.
    writeSync(fd, `\n${SEAL_LINE}`);
    return true;
  } catch {
    return false;
  }
}

function put(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the complete lines of `fd` from `offset` (a line start), up to the first seal; returns the
 * offset after them (the seal's, once found) and whether the seal was found.
 */
function readLines(fd: number, offset: number, each: (r: HookRecord) => void): { offset: number; sealed: boolean } {
  const size = fstatSync(fd).size;
  // The spool was replaced by a shorter file of the same inode number: from its start.
  if (offset > size) offset = 0;
  while (offset < size) {
    const buf = Buffer.alloc(Math.min(size - offset, CHUNK));
    const n = readSync(fd, buf, 0, buf.length, offset);
    if (n === 0) break;
    let end = buf.lastIndexOf(10, n - 1) + 1;
    // A line longer than a chunk is no spool line: passed over.
    if (end === 0 && n === CHUNK) end = n;
    if (end === 0) break;
    // The seal, as the hook looks for it: the first on a line of its own (`offset` starts a line).
    const first = buf.toString('utf8', 0, SEAL_LINE.length) === SEAL_LINE;
    const seal = first ? 0 : buf.subarray(0, end).indexOf(`\n${SEAL_LINE}`) + 1;
    const cut = first || seal > 0 ? seal : end;
    for (const line of buf.subarray(0, cut).toString('utf8').split('\n')) {
      const r = parseSpoolLine(line);
      if (r) each(r);
    }
    offset += cut;
    if (cut < end) return { offset, sealed: true };
  }
  return { offset, sealed: false };
}

/**
 * A session's new hook event, merged with the one before where the new one says less: a
 * permission or question notification names no tool (the tool and what it waits for come from
 * the event before), and an idle notification after a finished turn does not move when the turn
 * ended.
 */
export function setHook(target: HookTarget, key: string, r: HookRecord): boolean {
  const prev = target.hooks.get(key);
  if (prev && prev.at > r.at) return false;
  let next: HookState = {
    phase: r.phase,
    at: r.at,
    ...(r.waits ? { waits: r.waits } : {}),
    ...(r.tool ? { tool: r.tool } : {}),
    ...(r.pid ? { pid: r.pid } : {}),
  };
  if (
    prev &&
    (r.phase === 'permission' || r.phase === 'tool') &&
    !r.tool &&
    (prev.phase === 'tool' || prev.phase === 'permission')
  ) {
    next = { ...next, ...(prev.tool ? { tool: prev.tool } : {}), waits: prev.waits ?? r.waits };
  }
  if (prev && r.phase === 'stop' && prev.phase === 'stop') next = { ...next, at: prev.at };
  target.setHook(key, next);
  return true;
}
