// What the `statusline` command recorded of Claude Code's status (the usage-limit windows, the
// sessions' context use), in the state folder beside the database, for the exporter to export. The
// database is the running exporter's: the command, which runs after every message, writes a small
// JSON file instead, replaced whole (written beside, then renamed), so a reader never sees half.

import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'claude-code-statusline.json';
// Sessions whose context use is kept: the most recent ones.
const SESSIONS_KEPT = 20;

export interface RecordedLimit {
  window: string;
  usedRatio: number;
  /** Unix seconds. */
  resetsAt?: number;
}

export interface RecordedContext {
  usedRatio?: number;
  size?: number;
  /** When it was recorded (ms). */
  at: number;
}

export interface RecordedStatus {
  /** When the limits were recorded (ms). */
  at: number;
  limits: RecordedLimit[];
  /** Context use by session id, the last few sessions. */
  sessions: Record<string, RecordedContext>;
}

export const statusFile = (dir: string): string => join(dir, FILE);

/** What was recorded, or undefined when nothing was (or the file is not ours). */
export function readRecordedStatus(dir: string): RecordedStatus | undefined {
  try {
    const r = JSON.parse(readFileSync(statusFile(dir), 'utf8')) as Partial<RecordedStatus> | null;
    return r &&
      Array.isArray(r.limits) &&
      typeof r.sessions === 'object' &&
      r.sessions !== null &&
      typeof r.at === 'number'
      ? (r as RecordedStatus)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The file's modification time (ms), or undefined when there is none: whether to read it again. */
export function recordedStatusMtime(dir: string): number | undefined {
  return statSync(statusFile(dir), { throwIfNoEntry: false })?.mtimeMs;
}

/**
 * Records the windows Claude Code reported (none: those recorded before stay, until they reset)
 * and one session's context use.
 */
export function recordStatus(
  dir: string,
  limits: RecordedLimit[],
  session: { id: string; context: Omit<RecordedContext, 'at'> } | undefined,
  now = Date.now(),
): void {
  const before = readRecordedStatus(dir);
  const sessions = { ...before?.sessions };
  if (session) {
    delete sessions[session.id];
    sessions[session.id] = { ...session.context, at: now };
  }
  const kept = Object.entries(sessions)
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(0, SESSIONS_KEPT);
  const status: RecordedStatus = {
    at: limits.length > 0 ? now : (before?.at ?? now),
    limits: limits.length > 0 ? limits : (before?.limits ?? []),
    sessions: Object.fromEntries(kept),
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${statusFile(dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(status), { mode: 0o600 });
  renameSync(tmp, statusFile(dir));
}
