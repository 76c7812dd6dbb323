// The exporter's side of the hook spool: reads what hooks appended since the last read (the
// rotated spool's rest first) and keeps the freshest hook state of each session (on the store).
// Nothing of it is persisted: the spool itself is what a restart reads again (a megabyte or two,
// every session's latest event among them).

import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openRegular } from '../files/open.js';
import type { HookState } from '../session/types.js';
import { parseSpoolLine, SPOOL_FILE, SPOOL_MAX_BYTES, type HookRecord } from './spool.js';

// Sessions whose hook state is kept: the oldest go first past this many.
const MAX_SESSIONS = 10_000;

export class HookSource {
  private readonly path: string;
  /** The spool file read last (by inode) and how far. */
  private at?: { ino: number; offset: number };

  /** `hooks`: where the freshest state of each session goes (the store's). */
  constructor(stateDir: string, private readonly hooks: Map<string, HookState>) {
    this.path = join(stateDir, SPOOL_FILE);
  }

  /** The file the source follows (for a watcher). */
  get file(): string {
    return this.path;
  }

  /** Reads what was appended; returns whether a session's hook state changed. Never throws. */
  read(): boolean {
    let changed = false;
    const apply = (r: HookRecord) => {
      changed = setHook(this.hooks, `${r.harness}/${r.session}`, r) || changed;
    };
    const st = statSync(this.path, { throwIfNoEntry: false });
    const rotated = `${this.path}.1`;
    if (this.at === undefined || st?.ino !== this.at.ino) {
      // The spool was moved aside since (or this is the first read): its rest is in the rotated file.
      const old = statSync(rotated, { throwIfNoEntry: false });
      const from = this.at === undefined ? 0 : old?.ino === this.at.ino ? this.at.offset : undefined;
      if (old && from !== undefined) readLines(rotated, from, apply);
      this.at = undefined;
    }
    if (!st) return changed;
    const from = this.at && st.size >= this.at.offset ? this.at.offset : 0;
    this.at = { ino: st.ino, offset: readLines(this.path, from, apply) };
    return changed;
  }
}

/** Reads the complete lines of `path` from `offset` (a bounded read: the spool is rotated at a megabyte); returns the offset after them. */
function readLines(path: string, offset: number, each: (r: HookRecord) => void): number {
  let fd: number;
  try {
    fd = openRegular(path);
  } catch {
    return offset;
  }
  try {
    const size = Math.min(fstatSync(fd).size - offset, 2 * SPOOL_MAX_BYTES);
    if (size <= 0) return offset;
    const buf = Buffer.alloc(size);
    const n = readSync(fd, buf, 0, size, offset);
    const end = buf.lastIndexOf(10, n - 1);
    if (end < 0) return offset;
    for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
      const r = parseSpoolLine(line);
      if (r) each(r);
    }
    return offset + end + 1;
  } finally {
    closeSync(fd);
  }
}

/**
 * A session's new hook event, merged with the one before where the new one says less: a
 * permission notification names no tool (the tool and what it waits for come from the event
 * before), and an idle notification after a finished turn does not move when the turn ended.
 */
export function setHook(hooks: Map<string, HookState>, key: string, r: HookRecord): boolean {
  const prev = hooks.get(key);
  if (prev && prev.at > r.at) return false;
  let next: HookState = { phase: r.phase, at: r.at, ...(r.waits ? { waits: r.waits } : {}), ...(r.tool ? { tool: r.tool } : {}), ...(r.pid ? { pid: r.pid } : {}) };
  if (prev && r.phase === 'permission' && !r.tool && (prev.phase === 'tool' || prev.phase === 'permission')) {
    next = { ...next, ...(prev.tool ? { tool: prev.tool } : {}), waits: prev.waits ?? r.waits };
  }
  if (prev && r.phase === 'stop' && prev.phase === 'stop') next = { ...next, at: prev.at };
  hooks.delete(key);
  hooks.set(key, next);
  if (hooks.size > MAX_SESSIONS) hooks.delete(hooks.keys().next().value!);
  return true;
}
