// The `sessions` output: a session's live process (attribution, CPU, memory), drift, and agents
// no session file is joined to, whose status is their CPU's.

import { describe, expect, it } from 'vitest';
import { costText, usd } from '../../src/view/format.js';
import { formatSessions, sessionRecord, sessionsJson, viewRecords } from '../../src/view/records.js';
import type { LiveSession } from '../../src/store/live.js';
import type { UnownedAgent } from '../../src/store/processes.js';
import { PendingCalls } from '../../src/session/types.js';

const now = Date.UTC(2026, 10, 30, 12);
const live: LiveSession = {
  session: {
    harness: 'codex',
    id: 't1',
    project: 'app',
    startedAt: now - 60_000,
    lastActivityAt: now - 5000,
    turnStartedAt: now - 30_000,
    pendingTools: new PendingCalls(),
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    costUsd: 0,
    work: 2,
  },
  status: { status: 'working', reason: 'turn-open' },
  process: { attribution: 'open-file', pid: 42, cpuRatio: 0.123, residentBytes: 310_000_000 },
  drift: true,
};
const unowned: UnownedAgent[] = [
  { harness: 'aider', project: 'web', busy: true, cpuRatio: 0.98, residentBytes: 80_000_000, pid: 7 },
  { harness: 'cursor-agent', project: 'api', busy: false, cpuRatio: 0.01, residentBytes: 50_000_000, pid: 8 },
];

describe('the cost format every viewer shows (sessions, top, the page)', () => {
  it('gives whole cents from a cent up, a sub-cent amount to a hundredth of a cent, never rounded to a cent not spent or to a free-looking $0.00', () => {
    expect([0, 0.0052, 0.00031, 0.00004, 0.01, 0.014, 0.999, 1.5, 1234.567].map(usd)).toEqual([
      '$0.00',
      '$0.0052',
      '$0.0003',
      '<$0.0001',
      '$0.01',
      '$0.01',
      '$1.00',
      '$1.50',
      '$1234.57',
    ]);
  });

  it('says unpriced where a model has no price, and nothing where the harness records no usage', () => {
    const record = sessionRecord(live, 'name');
    expect(costText({ ...record, cost_usd: 0.0052 })).toBe('$0.0052');
    expect(costText({ ...record, cost_usd: null })).toBe('unpriced');
    expect(costText({ ...record, cost_usd: null, tokens: null })).toBe('-');
  });

  it('is the one `sessions` prints', () => {
    expect(
      formatSessions(viewRecords([{ ...live, session: { ...live.session, costUsd: 0.0052 } }], [], 'name'), now, 86400),
    ).toMatch(/ \$0\.0052 /);
  });
});

describe('sessions output', () => {
  it('shows the process column, drift, and process-only agents by their CPU', () => {
    const text = formatSessions(
      viewRecords(
        [live, { ...live, session: { ...live.session, id: 't2' }, process: undefined, drift: false }],
        unowned,
        'name',
      ),
      now,
      86400,
    );
    expect(text).toMatch(/transcript-only\s+5s ago\s+t2/);
    expect(text).toMatch(
      /codex\s+app\s+working \(turn-open\)\s+-\s+0 DRIFT\s+\$0\.00\s+-\s+open-file 12% 310MB\s+5s ago\s+t1/,
    );
    expect(text).toMatch(/aider\s+web\s+working \(cpu-busy\).*process-only 98% 80MB\s+now\s+pid 7/);
    expect(text).toMatch(/cursor-agent\s+api\s+idle \(cpu-idle\).*process-only 1% 50MB/);
  });

  it('lists the agents no session file is joined to as records of their own, for every viewer: session_id null, nothing recorded', () => {
    expect(viewRecords([live], unowned, 'name').slice(1)).toEqual([
      {
        harness: 'aider',
        session_id: null,
        project: 'web',
        cwd: null,
        git_branch: null,
        status: 'working',
        reason: 'cpu-busy',
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
        process: { pid: 7, cpu_ratio: 0.98, resident_memory_bytes: 80_000_000 },
        drift: false,
      },
      expect.objectContaining({
        harness: 'cursor-agent',
        session_id: null,
        status: 'idle',
        reason: 'cpu-idle',
        attribution: 'process-only',
      }),
    ]);
  });

  it('has the same in JSON', () => {
    const rows = JSON.parse(sessionsJson(viewRecords([live], unowned, 'name'))) as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({
      drift: true,
      attribution: 'open-file',
      process: { pid: 42, cpu_ratio: 0.123, resident_memory_bytes: 310_000_000 },
    });
    expect(rows.slice(1).map((r) => [r.harness, r.status, r.reason])).toEqual([
      ['aider', 'working', 'cpu-busy'],
      ['cursor-agent', 'idle', 'cpu-idle'],
    ]);
  });

  it('gives the working directory only where project.mode shows paths or names: hash and none hide it', () => {
    const inRepo = { ...live, session: { ...live.session, cwd: '/home/dev/src/secret-client' } };
    expect(sessionRecord(inRepo, 'path').cwd).toBe('/home/dev/src/secret-client');
    expect(sessionRecord(inRepo, 'name').cwd).toBe('/home/dev/src/secret-client');
    for (const mode of ['hash', 'none'] as const) {
      expect(sessionRecord(inRepo, mode).cwd).toBeNull();
      expect(sessionsJson(viewRecords([inRepo], [], mode))).not.toContain('secret-client');
    }
  });

  it('gives the running tool with its start, and transcript-only where no process owns the session', () => {
    const running = {
      ...live.session,
      pendingTools: PendingCalls.of({
        c1: { tool: 'exec_command', kind: 'execute' as const, startedAt: now - 720_000 },
        c2: { tool: 'x', kind: 'other' as const },
      }),
    };
    expect(sessionRecord({ ...live, session: running }, 'name')).toMatchObject({
      running_tool: { tool: 'exec_command', kind: 'execute', started_at: new Date(now - 720_000).toISOString() },
      attribution: 'open-file',
      process: { pid: 42, cpu_ratio: 0.123, resident_memory_bytes: 310_000_000 },
      drift: true,
    });
    const untimed = { ...live.session, pendingTools: PendingCalls.of({ c2: { tool: 'x', kind: 'other' as const } }) };
    expect(sessionRecord({ ...live, session: untimed, process: undefined, drift: false }, 'name')).toMatchObject({
      running_tool: { tool: 'x', kind: 'other', started_at: null },
      attribution: 'transcript-only',
      process: null,
      drift: false,
    });
  });
});
