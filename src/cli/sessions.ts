// The `sessions` command's output: what the exporter sees, one line per session.

import type { LiveSession } from '../metrics/snapshot.js';

function compact(n: number): string {
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

export function formatSessions(sessions: LiveSession[], now: number, windowSeconds: number): string {
  const rows = sessions.map(({ session: s, status }) => {
    const t = s.tokens;
    const context = s.contextTokens !== undefined
      ? `${compact(s.contextTokens)}${s.contextLimit ? `/${compact(s.contextLimit)} (${Math.round((100 * s.contextTokens) / s.contextLimit)}%)` : ''}`
      : '-';
    return [
      s.harness, s.project, status.status === 'idle' ? 'idle' : `${status.status} (${status.reason})`, s.model ?? '-',
      // A harness that records no tokens (Cursor) has neither tokens nor a cost to show.
      s.usageUnrecorded ? '-' : compact(t.input + t.output + t.cacheRead + t.cacheWrite),
      s.usageUnrecorded ? '-' : s.unpriced ? 'unpriced' : `$${s.costUsd.toFixed(4)}`, context,
      ago(now - s.lastActivityAt), s.id,
    ];
  });
  const header = ['HARNESS', 'PROJECT', 'STATUS', 'MODEL', 'TOKENS', 'COST', 'CONTEXT', 'LAST ACTIVITY', 'SESSION'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  if (rows.length === 0) return nothingIn(windowSeconds);
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
  /** A tool call not yet returned (the first, where several are). */
  running_tool: { tool: string; kind: string } | null;
  started_at: string;
  last_activity_at: string;
  turn_started_at: string | null;
}

export function sessionRecord({ session: s, status }: LiveSession): SessionRecord {
  const running = Object.values(s.pendingTools)[0];
  return {
    harness: s.harness, session_id: s.id, project: s.project, cwd: s.cwd ?? null, git_branch: s.gitBranch ?? null,
    status: status.status, reason: status.reason, model: s.model ?? null,
    tokens: s.usageUnrecorded ? null : { input: s.tokens.input, output: s.tokens.output, cache_read: s.tokens.cacheRead, cache_write: s.tokens.cacheWrite, reasoning: s.tokens.reasoning },
    cost_usd: s.unpriced || s.usageUnrecorded ? null : s.costUsd, context_tokens: s.contextTokens ?? null, context_limit_tokens: s.contextLimit ?? null,
    running_tool: running ? { tool: running.tool, kind: running.kind } : null,
    started_at: new Date(s.startedAt).toISOString(), last_activity_at: new Date(s.lastActivityAt).toISOString(),
    turn_started_at: s.turnStartedAt !== undefined ? new Date(s.turnStartedAt).toISOString() : null,
  };
}

export function sessionsJson(sessions: LiveSession[]): string {
  return `${JSON.stringify(sessions.map(sessionRecord), null, 2)}\n`;
}
