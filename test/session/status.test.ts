import { describe, expect, it } from 'vitest';
import { REASONS, statusOf, type Liveness } from '../../src/session/status.js';
import { PendingCalls, type ProcessState, type Session } from '../../src/session/types.js';

const now = Date.UTC(2026, 10, 30, 12);
const opts = { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 };
const base = (over: Partial<Session> = {}): Session => ({
  harness: 'claude-code',
  id: 's',
  startedAt: now - 3600_000,
  lastActivityAt: now - 60_000,
  pendingTools: new PendingCalls(),
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
  costUsd: 0,
  ...over,
});
const open = { turnStartedAt: now - 1e5 };
const ended = (minutesAgo: number, outcome: 'completed' | 'failed' = 'completed') => ({
  lastTurn: { outcome, endedAt: now - minutesAgo * 60_000 },
});
const shell = PendingCalls.of({ a: { tool: 'exec_command', kind: 'execute' } });
const files: Liveness = { visible: false };
const owner = (p: Partial<ProcessState> = {}): Liveness => ({ visible: true, proc: { attribution: 'registry', ...p } });
const gone: Liveness = { visible: true };

describe('status: every reason code of the contract', () => {
  const cases: [string, Session, Liveness, string, string][] = [
    [
      'an open question',
      base({
        ...open,
        pendingTools: PendingCalls.of({ a: { tool: 'AskUserQuestion', kind: 'communicate', waits: 'question' } }),
      }),
      files,
      'asking',
      'question',
    ],
    [
      'a call waiting for permission',
      base({ ...open, pendingTools: PendingCalls.of({ a: { tool: 'bash', kind: 'execute', waits: 'approval' } }) }),
      files,
      'asking',
      'approval',
    ],
    [
      "Claude Code's registry: permission prompt",
      base(open),
      owner({ status: 'waiting', waitingFor: 'permission prompt' }),
      'asking',
      'approval',
    ],
    [
      "Claude Code's registry: input needed",
      base(open),
      owner({ status: 'waiting', waitingFor: 'input needed' }),
      'asking',
      'question',
    ],
    [
      "Claude Code's registry: waiting, for something else",
      base(open),
      owner({ status: 'waiting' }),
      'asking',
      'waiting',
    ],
    [
      'a pending command whose agent has no tool child (Codex, Qwen Code, OpenCode)',
      base({ ...open, pendingTools: shell }),
      owner({ attribution: 'open-file', toolRunning: false }),
      'asking',
      'approval',
    ],
    [
      'a pending command whose agent runs a tool child',
      base({ ...open, pendingTools: shell }),
      owner({ attribution: 'open-file', toolRunning: true }),
      'working',
      'turn-open',
    ],
    [
      'an open turn',
      base({ ...open, pendingTools: PendingCalls.of({ a: { tool: 'Bash', kind: 'execute' } }) }),
      files,
      'working',
      'turn-open',
    ],
    ["Claude Code's registry: busy", base(ended(1)), owner({ status: 'busy' }), 'working', 'process-busy'],
    [
      'a tool child after an answer that looked final (Gemini CLI)',
      base(ended(1)),
      owner({ attribution: 'cwd', toolRunning: true }),
      'working',
      'process-busy',
    ],
    [
      'running subagents',
      base({ ...open, pendingTools: PendingCalls.of({ a: { tool: 'Agent', kind: 'agent', waits: 'subagents' } }) }),
      files,
      'delegating',
      'subagents',
    ],
    [
      "subagents still running after the parent's turn ended (Codex)",
      base({ ...ended(1), subagents: { x: true } }),
      files,
      'delegating',
      'subagents',
    ],
    [
      "a wait the harness keeps in a file of its own, with the call that asked open (Grok's plan approval)",
      base({
        ...open,
        asksSince: now - 50_000,
        pendingTools: PendingCalls.of({ p: { tool: 'exit_plan_mode', kind: 'switch_mode' } }),
      }),
      files,
      'asking',
      'approval',
    ],
    [
      "a wait the harness keeps in a file of its own, with no call open (Grok's plan approval on a resume)",
      base({ ...ended(10), asksSince: now - 60_000 }),
      files,
      'asking',
      'waiting',
    ],
    ['a failed last turn', base(ended(1, 'failed')), files, 'error', 'turn-failed'],
    [
      'a failed last turn, hours later',
      base({ ...ended(300, 'failed'), lastActivityAt: now - 300 * 60_000 }),
      files,
      'error',
      'turn-failed',
    ],
    [
      'a finished turn not yet read (where the harness records reading)',
      base({ ...ended(1), viewedAt: now - 120_000 }),
      files,
      'done',
      'unread',
    ],
    ['a turn that just ended', base(ended(1)), files, 'done', 'recent'],
    [
      "Claude Code's registry: idle, a turn that just ended",
      base(ended(1)),
      owner({ status: 'idle' }),
      'done',
      'process-idle',
    ],
    ['a finished turn already read', base({ ...ended(1), viewedAt: now - 30_000 }), files, 'idle', 'read'],
    ['a turn that ended long ago', base(ended(60)), files, 'idle', 'quiet'],
    [
      "Claude Code's registry: idle, long after the turn",
      base(ended(60)),
      owner({ status: 'idle' }),
      'idle',
      'process-idle',
    ],
  ];
  it.each(cases)('%s', (_name, s, live, status, reason) => {
    expect(statusOf(s, live, now, opts)).toEqual({ status, reason });
  });

  it("covers every reason code the table has but the CPU ones (an agent no file is joined to) and Antigravity's", () => {
    const produced = new Set(cases.map(([, , , st, r]) => `${st}/${r}`));
    const all = Object.entries(REASONS).flatMap(([st, rs]) => rs.map((r) => `${st}/${r}`));
    expect(all.filter((r) => !produced.has(r)).sort()).toEqual([
      'delegating/awaiting',
      'idle/cpu-idle',
      'working/cpu-busy',
      'working/new-prompt',
    ]);
  });
});

describe('status: a live process outranks the transcript', () => {
  it('an idle registry ends an open turn', () => {
    expect(statusOf(base({ ...open, lastActivityAt: now - 60_000 }), owner({ status: 'idle' }), now, opts)).toEqual({
      status: 'done',
      reason: 'process-idle',
    });
  });

  it('an open turn no live process owns is over at once, where processes are seen', () => {
    expect(statusOf(base({ ...open, pendingTools: shell }), gone, now, opts)).toEqual({
      status: 'done',
      reason: 'recent',
    });
    expect(
      statusOf(
        base({
          ...open,
          pendingTools: PendingCalls.of({ q: { tool: 'ask_user', kind: 'communicate', waits: 'question' } }),
        }),
        gone,
        now,
        opts,
      ),
    ).toEqual({ status: 'done', reason: 'recent' });
  });

  it('where processes are not seen, an abandoned turn ends after the stale timer, but a question or an approval never does', () => {
    const old = { turnStartedAt: now - 5 * 3600_000, lastActivityAt: now - 3 * 3600_000 };
    expect(statusOf(base(old), files, now, opts)).toEqual({ status: 'idle', reason: 'quiet' });
    expect(
      statusOf(
        base({
          ...old,
          pendingTools: PendingCalls.of({ q: { tool: 'AskUserQuestion', kind: 'communicate', waits: 'question' } }),
        }),
        files,
        now,
        opts,
      ),
    ).toEqual({ status: 'asking', reason: 'question' });
    expect(
      statusOf(
        base({ ...old, pendingTools: PendingCalls.of({ q: { tool: 'bash', kind: 'execute', waits: 'approval' } }) }),
        files,
        now,
        opts,
      ),
    ).toEqual({ status: 'asking', reason: 'approval' });
    // A live process keeps an open turn working however long it has been quiet.
    expect(statusOf(base(old), owner({ attribution: 'cwd' }), now, opts)).toEqual({
      status: 'working',
      reason: 'turn-open',
    });
  });

  it('a wait kept in a file is over once a turn ends at or after it was written, or its process is gone', () => {
    const asks = { asksSince: now - 120_000 };
    // Grok keeps its plan approval when the client quits: a turn ended since is the quit.
    expect(statusOf(base({ ...ended(1), ...asks }), files, now, opts)).toEqual({ status: 'done', reason: 'recent' });
    expect(statusOf(base({ ...ended(2), ...asks }), files, now, opts)).toEqual({ status: 'done', reason: 'recent' });
    expect(statusOf(base({ ...ended(3), ...asks }), files, now, opts)).toEqual({ status: 'asking', reason: 'waiting' });
    expect(statusOf(base({ ...open, ...asks }), gone, now, opts)).toEqual({ status: 'done', reason: 'recent' });
    // Where processes are not seen, it waits on a person however long they take, as an approval does.
    const old = { turnStartedAt: now - 5 * 3600_000, lastActivityAt: now - 3 * 3600_000 };
    expect(statusOf(base({ ...old, ...asks }), files, now, opts)).toEqual({ status: 'asking', reason: 'waiting' });
  });

  it('a new turn clears an error', () => {
    expect(statusOf(base({ ...ended(1, 'failed'), ...open }), files, now, opts)).toEqual({
      status: 'working',
      reason: 'turn-open',
    });
  });
});
