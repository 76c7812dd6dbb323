import { describe, expect, it } from 'vitest';
import { statusOf } from '../../src/session/status.js';
import type { Session } from '../../src/session/types.js';

const now = Date.UTC(2026, 10, 30, 12);
const opts = { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 };
const base = (over: Partial<Session> = {}): Session => ({
  harness: 'claude-code', id: 's', startedAt: now - 3600_000, lastActivityAt: now - 60_000, pendingTools: {},
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }, costUsd: 0, ...over,
});

describe('status', () => {
  it.each([
    ['a pending question', base({ turnStartedAt: now - 1e5, pendingTools: { a: { tool: 'AskUserQuestion', kind: 'communicate', waits: 'question' } } }), 'asking', 'question'],
    ['a pending approval', base({ turnStartedAt: now - 1e5, pendingTools: { a: { tool: 'exec_command', kind: 'execute', waits: 'approval' } } }), 'asking', 'approval'],
    ['running subagents', base({ turnStartedAt: now - 1e5, pendingTools: { a: { tool: 'Agent', kind: 'agent', waits: 'subagents' } } }), 'delegating', 'subagents'],
    ['an open turn', base({ turnStartedAt: now - 1e5, pendingTools: { a: { tool: 'Bash', kind: 'execute' } } }), 'working', 'turn-open'],
    ['a failed last turn', base({ lastTurn: { outcome: 'failed', endedAt: now - 60_000 } }), 'error', 'turn-failed'],
    ['a turn that just ended', base({ lastTurn: { outcome: 'completed', endedAt: now - 60_000 } }), 'done', 'turn-ended'],
    ['a finished turn not yet seen (where the harness records views)', base({ lastTurn: { outcome: 'completed', endedAt: now - 60_000 }, viewedAt: now - 120_000 }), 'done', 'unread'],
    ['a finished turn already seen', base({ lastTurn: { outcome: 'completed', endedAt: now - 60_000 }, viewedAt: now - 30_000 }), 'idle', 'none'],
    ['a failed turn already seen', base({ lastTurn: { outcome: 'failed', endedAt: now - 60_000 }, viewedAt: now - 30_000 }), 'idle', 'none'],
    ['a turn that ended long ago', base({ lastTurn: { outcome: 'completed', endedAt: now - 3600_000 } }), 'idle', 'none'],
    ['an open turn abandoned for hours', base({ turnStartedAt: now - 5 * 3600_000, lastActivityAt: now - 3 * 3600_000 }), 'idle', 'none'],
  ])('%s', (_name, s, status, reason) => {
    expect(statusOf(s, undefined, now, opts)).toEqual({ status, reason });
  });

  it('prefers what a live process says', () => {
    const s = base({ lastActivityAt: now - 5 * 3600_000 });
    expect(statusOf(s, { status: 'waiting', waitingFor: 'approve Bash' }, now, opts)).toEqual({ status: 'asking', reason: 'approval' });
    expect(statusOf(s, { status: 'waiting', waitingFor: 'input needed' }, now, opts)).toEqual({ status: 'asking', reason: 'question' });
    expect(statusOf(s, { status: 'busy' }, now, opts)).toEqual({ status: 'working', reason: 'process-busy' });
    expect(statusOf(base({ turnStartedAt: now - 5 * 3600_000, lastActivityAt: now - 3 * 3600_000 }), { status: 'busy' }, now, opts))
      .toEqual({ status: 'working', reason: 'turn-open' });
  });
});
