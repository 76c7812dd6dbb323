// The `sessions` output: a session's live process (attribution, CPU, memory), drift, and agents
// no session file is joined to, whose status is their CPU's.

import { describe, expect, it } from 'vitest';
import { formatSessions, sessionRecord, sessionsJson } from '../../src/view/records.js';
import type { LiveSession } from '../../src/store/live.js';
import type { UnownedAgent } from '../../src/store/processes.js';

const now = Date.UTC(2026, 10, 30, 12);
const live: LiveSession = {
  session: {
    harness: 'codex', id: 't1', project: 'app', startedAt: now - 60_000, lastActivityAt: now - 5000, turnStartedAt: now - 30_000, pendingTools: {},
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }, costUsd: 0, work: 2,
  },
  status: { status: 'working', reason: 'turn-open' },
  process: { attribution: 'open-file', pid: 42, cpuRatio: 0.123, residentBytes: 310_000_000 },
  drift: true,
};
const unowned: UnownedAgent[] = [
  { harness: 'aider', project: 'web', busy: true, cpuRatio: 0.98, residentBytes: 80_000_000, pid: 7 },
  { harness: 'cursor-agent', project: 'api', busy: false, cpuRatio: 0.01, residentBytes: 50_000_000, pid: 8 },
];

describe('sessions output', () => {
  it('shows the process column, drift, and process-only agents by their CPU', () => {
    const text = formatSessions([live, { ...live, session: { ...live.session, id: 't2' }, process: undefined, drift: false }], now, 86400, unowned);
    expect(text).toMatch(/transcript-only\s+5s ago\s+t2/);
    expect(text).toMatch(/codex\s+app\s+working \(turn-open\)\s+-\s+0 DRIFT\s+\$0\.0000\s+-\s+open-file 12% 310MB\s+5s ago\s+t1/);
    expect(text).toMatch(/aider\s+web\s+working \(cpu-busy\).*process-only 98% 80MB\s+now\s+pid 7/);
    expect(text).toMatch(/cursor-agent\s+api\s+idle \(cpu-idle\).*process-only 1% 50MB/);
  });

  it('has the same in JSON', () => {
    const rows = JSON.parse(sessionsJson([live], 'name', unowned)) as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({ drift: true, attribution: 'open-file', process: { pid: 42, cpu_ratio: 0.123, resident_memory_bytes: 310_000_000 } });
    expect(rows.slice(1).map((r) => [r.harness, r.status, r.reason])).toEqual([['aider', 'working', 'cpu-busy'], ['cursor-agent', 'idle', 'cpu-idle']]);
  });

  it('gives the working directory only where project.mode shows paths or names: hash and none hide it', () => {
    const inRepo = { ...live, session: { ...live.session, cwd: '/home/dev/src/secret-client' } };
    expect(sessionRecord(inRepo, 'path').cwd).toBe('/home/dev/src/secret-client');
    expect(sessionRecord(inRepo, 'name').cwd).toBe('/home/dev/src/secret-client');
    for (const mode of ['hash', 'none'] as const) {
      expect(sessionRecord(inRepo, mode).cwd).toBeNull();
      expect(sessionsJson([inRepo], mode)).not.toContain('secret-client');
    }
  });

  it('gives the running tool with its start, and transcript-only where no process owns the session', () => {
    const running = { ...live.session, pendingTools: { c1: { tool: 'exec_command', kind: 'execute' as const, startedAt: now - 720_000 }, c2: { tool: 'x', kind: 'other' as const } } };
    expect(sessionRecord({ ...live, session: running }, 'name')).toMatchObject({
      running_tool: { tool: 'exec_command', kind: 'execute', started_at: new Date(now - 720_000).toISOString() },
      attribution: 'open-file', process: { pid: 42, cpu_ratio: 0.123, resident_memory_bytes: 310_000_000 }, drift: true,
    });
    const untimed = { ...live.session, pendingTools: { c2: { tool: 'x', kind: 'other' as const } } };
    expect(sessionRecord({ ...live, session: untimed, process: undefined, drift: false }, 'name')).toMatchObject({
      running_tool: { tool: 'x', kind: 'other', started_at: null }, attribution: 'transcript-only', process: null, drift: false,
    });
  });
});
