// The `sessions` command's output: what the exporter sees, one line per session.

import type { ProjectOptions } from '../session/project.js';
import type { LiveSession } from '../store/live.js';
import type { UnownedAgent } from '../store/processes.js';
import { printable, printableJson } from '../terminal.js';
import { compact, costText, elapsed } from './format.js';

/** A window as a person says it: 86400 → "24h", 604800 → "7d", since a day's start 527818 → "6d2h". */
function span(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0 && seconds / size >= (unit === 'd' ? 2 : 1)) return `${seconds / size}${unit}`;
  }
  if (seconds >= 2 * 86400) return `${Math.floor(seconds / 86400)}d${Math.floor((seconds % 86400) / 3600)}h`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m`;
  return `${seconds}s`;
}

/** Nothing to show: how far back it looked, and how to look further. */
function nothingIn(windowSeconds: number): string {
  const wider = windowSeconds < 7 * 86400 ? '7d' : '30d';
  return (
    `no sessions active in the last ${span(windowSeconds)} (the activity window, sessions.activeWindowSeconds); ` +
    `look further back with --since ${wider}\n`
  );
}

/** The live process's attribution, CPU and memory, e.g. `registry 12% 310MB`. */
function processColumn({ attribution, process: p }: SessionRecord): string {
  return p
    ? `${attribution} ${Math.round((p.cpu_ratio ?? 0) * 100)}% ${compact(p.resident_memory_bytes ?? 0)}B`
    : attribution;
}

/** The `sessions` table of `viewRecords`: sessions, then agent processes no session file is joined to. */
export function formatSessions(records: readonly SessionRecord[], now: number, windowSeconds: number): string {
  const rows = records.map((r) => {
    const t = r.tokens;
    const context =
      r.context_tokens !== null
        ? `${compact(r.context_tokens)}${r.context_limit_tokens ? `/${compact(r.context_limit_tokens)} (${Math.round((100 * r.context_tokens) / r.context_limit_tokens)}%)` : ''}`
        : '-';
    return [
      r.harness,
      r.project,
      `${r.status} (${r.reason})`,
      r.model ?? '-',
      // A harness that records no tokens (Cursor) has neither tokens nor a cost to show.
      t === null ? '-' : `${compact(t.input + t.output + t.cache_read + t.cache_write)}${r.drift ? ' DRIFT' : ''}`,
      costText(r),
      context,
      processColumn(r),
      // An agent no session file is joined to has no recorded activity: it is running now.
      r.last_activity_at === null ? 'now' : `${elapsed(now - Date.parse(r.last_activity_at))} ago`,
      r.session_id ?? `pid ${r.process?.pid}`,
    ];
  });
  if (rows.length === 0) return nothingIn(windowSeconds);
  const header = [
    'HARNESS',
    'PROJECT',
    'STATUS',
    'MODEL',
    'TOKENS',
    'COST',
    'CONTEXT',
    'PROCESS',
    'LAST ACTIVITY',
    'SESSION',
  ];
  const all = [header, ...rows.map((r) => r.map(printable))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return `${lines.join('\n')}\n`;
}

/** One session as `sessions --json` and `/api/v1/sessions` give it (the shape is documented in docs/commands.md). */
export interface SessionRecord {
  harness: string;
  /** null for an agent process no session file is joined to (attribution `process-only`). */
  session_id: string | null;
  project: string;
  cwd: string | null;
  git_branch: string | null;
  status: string;
  reason: string;
  model: string | null;
  /** null where the harness records no tokens (Cursor agent). */
  tokens: { input: number; output: number; cache_read: number; cache_write: number; reasoning: number } | null;
  cost_usd: number | null;
  context_tokens: number | null;
  context_limit_tokens: number | null;
  /** A tool call not yet returned (the first, where several are), and since when it runs (null where unknown). */
  running_tool: { tool: string; kind: string; started_at: string | null } | null;
  /** null for an agent process no session file is joined to: no record says when it started or last did something. */
  started_at: string | null;
  last_activity_at: string | null;
  turn_started_at: string | null;
  /** How the live process was joined to the session (registry, environment, open-file, command-line, cwd), transcript-only, or process-only. */
  attribution: string;
  /** The live agent process and its children's CPU (cores) and resident memory; null where none owns the session. */
  process: { pid: number | null; cpu_ratio: number | null; resident_memory_bytes: number | null } | null;
  /** The session did work while the reader counted no tokens for it: the reader fell behind the harness's format. */
  drift: boolean;
}

const iso = (ms: number | undefined): string | null => (ms !== undefined ? new Date(ms).toISOString() : null);

/**
 * The record of a session; `mode` is project.mode: where it hides the project's path and name
 * (hash, none), the working directory is not given either.
 */
export function sessionRecord(
  { session: s, status, process: proc, drift }: LiveSession,
  mode: ProjectOptions['mode'],
): SessionRecord {
  const running = s.pendingTools.values().next().value;
  const cwd = mode === 'hash' || mode === 'none' ? undefined : s.cwd;
  return {
    harness: s.harness,
    session_id: s.id,
    project: s.project,
    cwd: cwd ?? null,
    git_branch: s.gitBranch ?? null,
    status: status.status,
    reason: status.reason,
    model: s.model ?? null,
    tokens: s.usageUnrecorded
      ? null
      : {
          input: s.tokens.input,
          output: s.tokens.output,
          cache_read: s.tokens.cacheRead,
          cache_write: s.tokens.cacheWrite,
          reasoning: s.tokens.reasoning,
        },
    cost_usd: s.unpriced || s.usageUnrecorded ? null : s.costUsd,
    context_tokens: s.contextTokens ?? null,
    context_limit_tokens: s.contextLimit ?? null,
    running_tool: running ? { tool: running.tool, kind: running.kind, started_at: iso(running.startedAt) } : null,
    started_at: new Date(s.startedAt).toISOString(),
    last_activity_at: new Date(s.lastActivityAt).toISOString(),
    turn_started_at: iso(s.turnStartedAt),
    attribution: proc?.attribution ?? 'transcript-only',
    process: proc
      ? { pid: proc.pid ?? null, cpu_ratio: proc.cpuRatio ?? null, resident_memory_bytes: proc.residentBytes ?? null }
      : null,
    drift,
  };
}

/** An agent process no session file is joined to: its status is its CPU's. */
export function unownedRecord(a: UnownedAgent): SessionRecord {
  return {
    harness: a.harness,
    session_id: null,
    project: a.project,
    cwd: null,
    git_branch: null,
    status: a.busy ? 'working' : 'idle',
    reason: a.busy ? 'cpu-busy' : 'cpu-idle',
    model: null,
    tokens: null,
    cost_usd: null,
    context_tokens: null,
    context_limit_tokens: null,
    running_tool: null,
    started_at: null,
    last_activity_at: null,
    turn_started_at: null,
    attribution: 'process-only',
    process: { pid: a.pid, cpu_ratio: a.cpuRatio, resident_memory_bytes: a.residentBytes },
    drift: false,
  };
}

/**
 * What every viewer lists (`sessions`, `/api/v1/sessions`, `top`, the page): the live sessions,
 * then the agent processes no session file is joined to, the same entries coding_agent_sessions
 * and the summary count.
 */
export function viewRecords(
  sessions: readonly LiveSession[],
  unowned: readonly UnownedAgent[],
  mode: ProjectOptions['mode'],
): SessionRecord[] {
  return [...sessions.map((l) => sessionRecord(l, mode)), ...unowned.map(unownedRecord)];
}

export function sessionsJson(records: readonly SessionRecord[]): string {
  return `${printableJson(records)}\n`;
}
