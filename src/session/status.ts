// What a session is doing now, and why, from its recorded state and (where the harness publishes
// it) its live process.

import type { ProcessState, Session, Status } from './types.js';

export interface StatusOptions {
  /** A finished turn shows as done (or error) this long, then the session is idle. */
  doneForMs: number;
  /** Without any new record for this long, an open turn or pending call is taken as abandoned. */
  staleAfterMs: number;
}

export interface SessionStatus {
  status: Status;
  /** asking: question|approval|waiting; working: turn-open|process-busy; delegating: subagents;
   *  error: turn-failed; done: turn-ended|unread (not yet seen, where the harness records it); idle: none. */
  reason: string;
}

export function statusOf(s: Session, proc: ProcessState | undefined, now: number, opts: StatusOptions): SessionStatus {
  if (proc?.status === 'waiting') {
    const w = proc.waitingFor ?? '';
    return { status: 'asking', reason: w.startsWith('approve') ? 'approval' : w === 'input needed' ? 'question' : 'waiting' };
  }
  const fresh = proc !== undefined || now - s.lastActivityAt < opts.staleAfterMs;
  if (fresh) {
    const waits = new Set(Object.values(s.pendingTools).map((t) => t.waits));
    if (waits.has('question')) return { status: 'asking', reason: 'question' };
    if (waits.has('approval')) return { status: 'asking', reason: 'approval' };
    if (waits.has('subagents')) return { status: 'delegating', reason: 'subagents' };
    if (s.turnStartedAt !== undefined) return { status: 'working', reason: 'turn-open' };
  }
  if (proc?.status === 'busy') return { status: 'working', reason: 'process-busy' };
  // Where the harness records that the person looked at the session, a finished turn they have
  // seen is no longer news: it stays done (or error) only while unread.
  const unread = s.viewedAt === undefined ? undefined : s.lastTurn !== undefined && s.viewedAt < s.lastTurn.endedAt;
  if (s.lastTurn && unread !== false && now - s.lastTurn.endedAt < opts.doneForMs) {
    // Hermes's own picker shows a failed turn as error, the status contract does not: done.
    return s.lastTurn.outcome === 'failed' && s.harness !== 'hermes'
      ? { status: 'error', reason: 'turn-failed' }
      : { status: 'done', reason: unread ? 'unread' : 'turn-ended' };
  }
  return { status: 'idle', reason: 'none' };
}
