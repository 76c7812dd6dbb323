// The `sessions` command's output: what the exporter sees, one line per session.

import type { ProjectOptions } from '../session/project.js';
import type { LiveSession } from '../store/live.js';
import type { UnownedAgent } from '../store/processes.js';

/** A count with one decimal and a k, M or G suffix: 1234 → "1.2k". */
export function compact(n: number): string {
  const [div, unit] = n >= 1e9 ? [1e9, 'G'] : n >= 1e6 ? [1e6, 'M'] : n >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Math.round((n * 10) / div) / 10}${unit}`;
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** A window as a person says it: 86400 → "24h", 604800 → "7d". */
function span(seconds: number): string {
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0 && seconds / size >= (unit === 'd' ? 2 : 1)) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/** Nothing to show: how far back it looked, and how to look further. */
function nothingIn(windowSeconds: number): string {
  const wider = windowSeconds < 7 * 86400 ? '7d' : '30d';
  return `no sessions active in the last ${span(windowSeconds)} (the activity window, sessions.activeWindowSeconds); `
    + `look further back with --since ${wider}\n`;
}

/** The live process's attribution, CPU and memory, e.g. `registry 12% 310MB`. */
function processColumn(attribution: string, cpuRatio = 0, residentBytes = 0): string {
  return `${attribution} ${Math.round(cpuRatio * 100)}% ${compact(residentBytes)}B`;
}

/**
 * Sessions, then agent processes no session file is joined to (a harness not read, or before its
 * first record), whose status is their CPU's.
 */
export function formatSessions(sessions: LiveSession[], now: number, windowSeconds: number, unowned: readonly UnownedAgent[] = []): string {
  const rows = sessions.map(({ session: s, status, process: proc, drift }) => {
    const t = s.tokens;
    const context = s.contextTokens !== undefined
      ? `${compact(s.contextTokens)}${s.contextLimit ? `/${compact(s.contextLimit)} (${Math.round((100 * s.contextTokens) / s.contextLimit)}%)` : ''}`
      : '-';
    return [
      s.harness, s.project, `${status.status} (${status.reason})`, s.model ?? '-',
      // A harness that records no tokens (Cursor) has neither tokens nor a cost to show.
      s.usageUnrecorded ? '-' : `${compact(t.input + t.output + t.cacheRead + t.cacheWrite)}${drift ? ' DRIFT' : ''}`,
      s.usageUnrecorded ? '-' : s.unpriced ? 'unpriced' : `$${s.costUsd.toFixed(4)}`, context,
      proc ? processColumn(proc.attribution, proc.cpuRatio, proc.residentBytes) : 'transcript-only', ago(now - s.lastActivityAt), s.id,
    ];
  });
  for (const a of unowned) {
    rows.push([a.harness, a.project, a.busy ? 'working (cpu-busy)' : 'idle (cpu-idle)', '-', '-', '-', '-',
      processColumn('process-only', a.cpuRatio, a.residentBytes), 'now', `pid ${a.pid}`]);
  }
  if (rows.length === 0) return nothingIn(windowSeconds);
  const header = ['HARNESS', 'PROJECT', 'STATUS', 'MODEL', 'TOKENS', 'COST', 'CONTEXT', 'PROCESS', 'LAST ACTIVITY', 'SESSION'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return `${lines.join('\n')}\n`;
}

/** One session as `sessions --json` and `/api/v1/sessions` give it (the shape is documented in the README). */
export interface SessionRecord {
  harness: string;
  session_id: string;
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
  started_at: string;
  last_activity_at: string;
  turn_started_at: string | null;
  /** How the live process was joined to the session (registry, environment, open-file, command-line, cwd), or transcript-only. */
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
export function sessionRecord({ session: s, status, process: proc, drift }: LiveSession, mode: ProjectOptions['mode']): SessionRecord {
  const running = Object.values(s.pendingTools)[0];
  const cwd = mode === 'hash' || mode === 'none' ? undefined : s.cwd;
  return {
    harness: s.harness, session_id: s.id, project: s.project, cwd: cwd ?? null, git_branch: s.gitBranch ?? null,
    status: status.status, reason: status.reason, model: s.model ?? null,
    tokens: s.usageUnrecorded ? null : { input: s.tokens.input, output: s.tokens.output, cache_read: s.tokens.cacheRead, cache_write: s.tokens.cacheWrite, reasoning: s.tokens.reasoning },
    cost_usd: s.unpriced || s.usageUnrecorded ? null : s.costUsd, context_tokens: s.contextTokens ?? null, context_limit_tokens: s.contextLimit ?? null,
    running_tool: running ? { tool: running.tool, kind: running.kind, started_at: iso(running.startedAt) } : null,
    started_at: new Date(s.startedAt).toISOString(), last_activity_at: new Date(s.lastActivityAt).toISOString(),
    turn_started_at: iso(s.turnStartedAt),
    attribution: proc?.attribution ?? 'transcript-only',
    process: proc ? { pid: proc.pid ?? null, cpu_ratio: proc.cpuRatio ?? null, resident_memory_bytes: proc.residentBytes ?? null } : null,
    drift,
  };
}

/** Sessions, then agent processes no session file is joined to (`session_id` null, attribution process-only). */
export function sessionsJson(sessions: LiveSession[], mode: ProjectOptions['mode'], unowned: readonly UnownedAgent[] = []): string {
  return `${JSON.stringify(
    [...sessions.map((l) => sessionRecord(l, mode)), ...unowned.map((a) => ({
      harness: a.harness, session_id: null, project: a.project, status: a.busy ? 'working' : 'idle', reason: a.busy ? 'cpu-busy' : 'cpu-idle',
      attribution: 'process-only', process: { pid: a.pid, cpu_ratio: a.cpuRatio, resident_memory_bytes: a.residentBytes },
    }))],
    null,
    2,
  )}\n`;
}
