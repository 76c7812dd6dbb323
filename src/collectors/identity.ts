// Which file a path holds: the one read before (maybe grown), one moved there from another path,
// or one replaced or cut short under the same name. A file is known by its inode and its first
// bytes (its head), and by how far it was read; the collector asks before it reads and tells what
// it read, and hands what changed of the rows to the store (`handOver`): this knows no store.
// Rows of files no longer listed are kept a while, in case the file comes back.

import { createHash } from 'node:crypto';
import { closeSync, existsSync, readSync, statSync, type Stats } from 'node:fs';
import type { Logger } from '../log.js';
import { openRegular } from '../files/open.js';
import type { FileRow } from '../state/db.js';

// The first bytes of a file identify its history: a file replaced by one with the same beginning
// was rewritten (its old lines are not counted again); another beginning means a new file.
const HEAD = 4096;
// A file no longer listed (deleted, moved away, in a folder unreadable for now) keeps its row this
// long: if it comes back, its identity (inode, first bytes) and how far it was read say what was
// counted already. Longer than Claude Code keeps a transcript by default (30 days since its last
// change, then it deletes it for good); Codex and Copilot keep theirs until the user deletes them.
export const RETAIN_GONE_MS = 35 * 86_400_000;

function headHash(path: string, length: number): string {
  const buf = Buffer.alloc(length);
  const fd = openRegular(path);
  try {
    const n = readSync(fd, buf, 0, length, 0);
    return createHash('sha1').update(buf.subarray(0, n)).digest('hex');
  } finally {
    closeSync(fd);
  }
}

function statOrNot(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** A file of lines read before, found under its path or moved there. */
export interface Previous {
  row: FileRow;
  /** Nothing was added to it since. */
  unchanged: boolean;
  /**
   * Replaced or cut short: it is read again from its start, and its lines before `replayUntil`
   * (the same history as before) are replayed, not counted again.
   */
  again?: { replayUntil: number };
}

/** Where the rows that changed go, to be committed with the changes their reads made: the store. */
export interface FileStaging {
  stageFile(row: FileRow, bytesRead: number): void;
  stageRemoval(path: string): void;
}

export class FileIdentities {
  private readonly tracked = new Map<string, FileRow>();
  /**
   * The paths of the rows by inode: a file not found under its own path is compared only with the
   * rows of its inode (walking every row for every new file made a first read quadratic).
   */
  private readonly byIno = new Map<number, Set<string>>();
  /** Rows compared with a file not found under its own path (a count, to tell a lookup from a walk). */
  comparisons = 0;
  /** What changed of the rows since the last `handOver`, in order: a row (with the bytes read for it), or a path forgotten. */
  private changes: ({ row: FileRow; bytesRead: number } | { removed: string })[] = [];

  constructor(
    private readonly collector: string,
    rows: Iterable<FileRow>,
    private readonly log: Logger,
  ) {
    for (const row of rows) this.set(row);
  }

  /** What was read of the file last read under `path`. */
  get(path: string): FileRow | undefined {
    return this.tracked.get(path);
  }

  /** What was read before of the file of lines now at `path` (`st`), and how its reading goes on. */
  previous(path: string, st: Stats): Previous | undefined {
    const row = this.tracked.get(path) ?? this.moved(path, st.ino);
    if (!row) return undefined;
    if (row.ino === st.ino && row.size === st.size && row.offset === st.size) return { row, unchanged: true };
    if (row.ino === st.ino && st.size >= row.offset) return { row, unchanged: false };
    const headLength = row.headLength ?? Math.min(row.offset, HEAD);
    const same = row.head !== undefined && st.size >= headLength && headHash(path, headLength) === row.head;
    this.log.info('file replaced, reading again', { collector: this.collector, path, sameHistory: same });
    return { row, unchanged: false, again: { replayUntil: same ? Math.min(row.offset, st.size) : 0 } };
  }

  /**
   * Whether the file at `path` (`st`), never read under this path, is read under another path it
   * is listed under too: a link and its target, two hard links. One file is read once, under the
   * path it was first read under, whichever order the listing comes in. The same file is the same
   * device and inode (a link's own inode says nothing of what it points to).
   */
  readElsewhere(path: string, st: Stats): boolean {
    if (this.tracked.has(path)) return false;
    for (const [other, row] of this.candidates(path, st.ino)) {
      if (row.goneMs !== undefined) continue; // not listed any more: not read there either
      const there = statOrNot(other);
      if (there?.dev === st.dev && there.ino === st.ino) return true;
    }
    return false;
  }

  /**
   * The identity of a file of lines read from `from` to `to`: the first read of its beginning
   * fixes it; reads of what follows keep it.
   */
  head(path: string, prev: FileRow | undefined, from: number, to: number): Pick<FileRow, 'head' | 'headLength'> {
    if (from > 0 && prev?.head !== undefined) return { head: prev.head, headLength: prev.headLength };
    const headLength = Math.min(to, HEAD);
    return { headLength, head: headLength ? headHash(path, headLength) : undefined };
  }

  /** A file was read (`bytesRead` of it this time): `row` says how far, and what it is. */
  track(row: FileRow, bytesRead: number): void {
    this.set(row);
    this.changes.push({ row, bytesRead });
  }

  /** Hands what changed of the rows since the last time, in order, to `to` (the store). */
  handOver(to: FileStaging): void {
    for (const c of this.changes) {
      if ('removed' in c) to.stageRemoval(c.removed);
      else to.stageFile(c.row, c.bytesRead);
    }
    this.changes = [];
  }

  /** A file listed again after it was gone: it is not gone any more. */
  listed(path: string): void {
    const row = this.tracked.get(path);
    if (row?.goneMs === undefined) return;
    delete row.goneMs;
    this.changes.push({ row, bytesRead: 0 });
  }

  /**
   * Files not listed any more (`seen`: those listed): their rows are kept, marked gone, for
   * RETAIN_GONE_MS, then forgotten (their counts stay in the counters).
   */
  sweep(seen: Set<string>): void {
    const now = Date.now();
    for (const [path, row] of this.tracked) {
      if (seen.has(path)) continue;
      if (row.goneMs === undefined) {
        row.goneMs = now;
        this.changes.push({ row, bytesRead: 0 });
      } else if (now - row.goneMs > RETAIN_GONE_MS) {
        this.forget(path);
      }
    }
  }

  /**
   * A file that a harness moved (Codex archives rollouts into `archived_sessions/`) keeps its inode
   * and its first bytes: it carries on from where its old path was read, instead of counting again.
   */
  private moved(path: string, ino: number): FileRow | undefined {
    for (const [oldPath, row] of this.candidates(path, ino)) {
      if (row.head === undefined || existsSync(oldPath)) continue;
      if (headHash(path, row.headLength ?? 0) !== row.head) continue;
      this.forget(oldPath);
      this.log.info('file moved', { collector: this.collector, from: oldPath, to: path });
      // Tracked under its new path now, also when nothing was appended to it.
      const moved: FileRow = { ...row, path };
      delete moved.goneMs;
      this.track(moved, 0);
      return moved;
    }
    return undefined;
  }

  /** The rows of the files read under other paths than `path` that had inode `ino`. */
  private *candidates(path: string, ino: number): Generator<[string, FileRow]> {
    for (const other of this.byIno.get(ino) ?? []) {
      this.comparisons++;
      if (other !== path) yield [other, this.tracked.get(other)!];
    }
  }

  private set(row: FileRow): void {
    const old = this.tracked.get(row.path);
    if (old) this.unindex(old);
    this.tracked.set(row.path, row);
    let paths = this.byIno.get(row.ino);
    if (!paths) this.byIno.set(row.ino, (paths = new Set()));
    paths.add(row.path);
  }

  private forget(path: string): void {
    const row = this.tracked.get(path);
    if (!row) return;
    this.tracked.delete(path);
    this.unindex(row);
    this.changes.push({ removed: path });
  }

  private unindex(row: FileRow): void {
    const paths = this.byIno.get(row.ino);
    paths?.delete(row.path);
    if (paths?.size === 0) this.byIno.delete(row.ino);
  }
}
