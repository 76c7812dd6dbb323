// The `sessions` command's output: what the exporter sees, one line per session.

import type { LiveSession } from '../metrics/snapshot.js';
import type { UnownedAgent } from '../session/store.js';

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

/** The live process's attribution, CPU and memory, e.g. `registry 12% 310MB`. */
function processColumn(attribution: string, cpuRatio = 0, residentBytes = 0): string {
  return `${attribution} ${Math.round(cpuRatio * 100)}% ${compact(residentBytes)}B`;
}

/**
 * Sessions, then agent processes no session file is joined to (a harness not read, or before its
 * first record), whose status is their CPU's.
 */
export function formatSessions(sessions: LiveSession[], now: number, unowned: readonly UnownedAgent[] = []): string {
  const rows = sessions.map(({ session: s, status, process: proc, drift }) => {
    const t = s.tokens;
    const context = s.contextTokens !== undefined
      ? `${compact(s.contextTokens)}${s.contextLimit ? `/${compact(s.contextLimit)} (${Math.round((100 * s.contextTokens) / s.contextLimit)}%)` : ''}`
      : '-';
    return [
      s.harness, s.project, `${status.status} (${status.reason})`, s.model ?? '-',
      `${compact(t.input + t.output + t.cacheRead + t.cacheWrite)}${drift ? ' DRIFT' : ''}`, s.unpriced ? 'unpriced' : `$${s.costUsd.toFixed(4)}`, context,
      proc ? processColumn(proc.attribution, proc.cpuRatio, proc.residentBytes) : 'transcript-only', ago(now - s.lastActivityAt), s.id,
    ];
  });
  for (const a of unowned) {
    rows.push([a.harness, a.project, a.busy ? 'working (cpu-busy)' : 'idle (cpu-idle)', '-', '-', '-', '-',
      processColumn('process-only', a.cpuRatio, a.residentBytes), 'now', `pid ${a.pid}`]);
  }
  const header = ['HARNESS', 'PROJECT', 'STATUS', 'MODEL', 'TOKENS', 'COST', 'CONTEXT', 'PROCESS', 'LAST ACTIVITY', 'SESSION'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return `${lines.join('\n')}\n${rows.length === 0 ? 'no sessions active in the activity window\n' : ''}`;
}

export function sessionsJson(sessions: LiveSession[], unowned: readonly UnownedAgent[] = []): string {
  return `${JSON.stringify(
    [...sessions.map(({ session: s, status, process: proc, drift }) => ({
      harness: s.harness, session_id: s.id, project: s.project, cwd: s.cwd ?? null, git_branch: s.gitBranch ?? null,
      status: status.status, reason: status.reason, model: s.model ?? null,
      tokens: { input: s.tokens.input, output: s.tokens.output, cache_read: s.tokens.cacheRead, cache_write: s.tokens.cacheWrite, reasoning: s.tokens.reasoning },
      cost_usd: s.unpriced ? null : s.costUsd, context_tokens: s.contextTokens ?? null, context_limit_tokens: s.contextLimit ?? null,
      started_at: new Date(s.startedAt).toISOString(), last_activity_at: new Date(s.lastActivityAt).toISOString(),
      turn_started_at: s.turnStartedAt !== undefined ? new Date(s.turnStartedAt).toISOString() : null,
      attribution: proc?.attribution ?? 'transcript-only',
      process: proc ? { pid: proc.pid ?? null, cpu_ratio: proc.cpuRatio ?? null, resident_memory_bytes: proc.residentBytes ?? null } : null,
      drift,
    })), ...unowned.map((a) => ({
      harness: a.harness, session_id: null, project: a.project, status: a.busy ? 'working' : 'idle', reason: a.busy ? 'cpu-busy' : 'cpu-idle',
      attribution: 'process-only', process: { pid: a.pid, cpu_ratio: a.cpuRatio, resident_memory_bytes: a.residentBytes },
    }))],
    null,
    2,
  )}\n`;
}
