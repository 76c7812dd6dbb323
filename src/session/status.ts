// What a session is doing now, and why, from its recorded state and its live process, with the
// reason codes of the status contract we follow (docs/counting.md).

import type { HarnessFacts, HookState, ProcessState, Session, Status } from './types.js';

export interface StatusOptions {
  /** A finished turn shows as done this long (where no read marker decides), then the session is idle. */
  doneForMs: number;
  /**
   * Where processes cannot be seen: without any new record for this long, an open turn or a
   * running call is taken as abandoned (an open question or approval never is).
   */
  staleAfterMs: number;
}

/** What the process table says of a session. */
export interface Liveness {
  /** The harness's processes can be seen here: a session no process owns has no live agent. */
  visible: boolean;
  /** The live process joined to the session. */
  proc?: ProcessState;
  /** The session's last hook event, where its harness runs our hook. */
  hook?: HookState;
}

export const REASONS = {
  asking: ['question', 'approval', 'waiting'],
  working: ['turn-open', 'process-busy', 'new-prompt', 'cpu-busy'],
  delegating: ['subagents', 'awaiting'],
  error: ['turn-failed'],
  done: ['unread', 'recent', 'process-idle'],
  idle: ['read', 'quiet', 'process-idle', 'cpu-idle'],
} as const satisfies Record<Status, readonly string[]>;

export type SessionStatus = { [S in Status]: { status: S; reason: (typeof REASONS)[S][number] } }[Status];

const NOT_SEEN: Liveness = { visible: false };

// A hook event this much older than the session's newest record is not the last word on it (a
// hook removed since, or one event lost): the files decide.
const HOOK_BEHIND_MS = 60_000;
// Phases after which records keep coming while the turn goes on.
const TURN_PHASES = new Set<HookState['phase']>(['prompt', 'tool', 'tool-done']);

export function statusOf(
  s: Session,
  live: Liveness = NOT_SEEN,
  now: number,
  opts: StatusOptions,
  facts: HarnessFacts = {},
): SessionStatus {
  const proc = live.proc;
  if (proc?.status === 'waiting') {
    const w = proc.waitingFor ?? '';
    return {
      status: 'asking',
      reason:
        w === 'permission prompt' || w.startsWith('approve')
          ? 'approval'
          : w === 'input needed'
            ? 'question'
            : 'waiting',
    };
  }
  // Where processes are seen, a session no live process owns has no agent left to work or ask:
  // what its files leave open was cut off. Where they are not, the timer decides, but never
  // for a question or an approval, which wait on a person however long they take.
  const ownerGone = live.visible && proc === undefined;
  const stale = !live.visible && now - s.lastActivityAt >= opts.staleAfterMs;
  const hook = live.hook;
  if (hook && !ownerGone && hookStands(s, hook, proc, stale, now, opts)) {
    // Where the files record a permission's answer, one written after the event says its wait
    // is over; until then (the file late, or silent) the event stands.
    const byHook =
      hook.phase === 'permission' && facts.recordsPermissions && answeredSince(s, hook.at)
        ? undefined
        : hookStatus(hook, proc);
    if (byHook) return byHook;
    if (hook.phase === 'stop') return finished(s, Math.max(hook.at, s.lastTurn?.endedAt ?? 0), false, now, opts);
  }
  // A registry that says idle outranks a turn its transcript leaves open.
  const processIdle = proc?.status === 'idle';
  if (!ownerGone && !processIdle) {
    const pending = [...s.pendingTools.values()];
    const waits = new Set(pending.map((t) => t.waits));
    if (waits.has('question')) return { status: 'asking', reason: 'question' };
    if (waits.has('approval')) return { status: 'asking', reason: 'approval' };
    // A wait the harness keeps in a file of its own (Grok's plan approval, kept when it quits so
    // that a resume asks again) is over once a turn ends at or after it was written. Grok asks only
    // from the call that exits plan mode, run after the rest of its batch: an open call is that one.
    if (
      s.asksSince !== undefined &&
      !(s.turnStartedAt === undefined && (s.lastTurn?.endedAt ?? -Infinity) >= s.asksSince)
    )
      return { status: 'asking', reason: pending.length > 0 ? 'approval' : 'waiting' };
    if (!stale) {
      if (waits.has('subagents') || Object.keys(s.subagents ?? {}).length > 0)
        return { status: 'delegating', reason: 'subagents' };
      if (proc?.status === 'busy') return { status: 'working', reason: 'process-busy' };
      // A command the harness may hold for approval (its files look the same either way) runs only
      // if a child of the agent carries the harness's marker.
      if (
        s.turnStartedAt !== undefined &&
        proc?.toolRunning === false &&
        pending.some((t) => t.kind === 'execute' && !t.waits)
      ) {
        return { status: 'asking', reason: 'approval' };
      }
      if (s.turnStartedAt !== undefined) return { status: 'working', reason: 'turn-open' };
      // A harness that writes a turn's end before its tool calls (Gemini CLI): the running tool says otherwise.
      if (proc?.toolRunning) return { status: 'working', reason: 'process-busy' };
    }
  }
  // The contract shows a failed turn as an error, except for a harness it gives no error status.
  if (s.turnStartedAt === undefined && s.lastTurn?.outcome === 'failed' && !facts.noErrorStatus)
    return { status: 'error', reason: 'turn-failed' };
  // A turn cut off ended with its last record.
  const endedAt = s.turnStartedAt !== undefined ? s.lastActivityAt : s.lastTurn?.endedAt;
  if (endedAt === undefined) return { status: 'idle', reason: processIdle ? 'process-idle' : 'quiet' };
  return finished(s, endedAt, processIdle, now, opts);
}

/**
 * Whether a hook event is still the exact word on a session whose process lives (a kill fires
 * nothing: the process table says so). What happened after it, by the files or the registry, is
 * the later word: a turn's end the files record after it (an interrupted turn, a permission
 * refused with Esc: neither fires a hook), or a status the registry set since (Claude Code's
 * `idle` once the person refused). A turn it left open goes stale as the files' do where
 * processes cannot be seen; any other event stands until a record well after it.
 */
function hookStands(
  s: Session,
  hook: HookState,
  proc: ProcessState | undefined,
  stale: boolean,
  now: number,
  opts: StatusOptions,
): boolean {
  if ((proc?.statusAt ?? -Infinity) > hook.at) return false;
  if (s.turnStartedAt === undefined && (s.lastTurn?.endedAt ?? -Infinity) > hook.at) return false;
  if (!TURN_PHASES.has(hook.phase)) return s.lastActivityAt - hook.at < HOOK_BEHIND_MS;
  return !(stale && now - hook.at >= opts.staleAfterMs);
}

/** The files recorded something after `at` and leave no call waiting on the person. */
function answeredSince(s: Session, at: number): boolean {
  return (
    s.lastActivityAt > at && ![...s.pendingTools.values()].some((t) => t.waits === 'approval' || t.waits === 'question')
  );
}

/**
 * What a hook's last event says, where it decides alone: a turn under way, a person asked, the
 * session ended. Approving a command fires nothing (but in Qwen Code): a tool child running, or
 * a registry that says busy (Claude Code's) with no time to place it before the event, says the
 * wait is over.
 */
function hookStatus(hook: HookState, proc: ProcessState | undefined): SessionStatus | undefined {
  switch (hook.phase) {
    case 'permission':
      if (proc?.toolRunning || (proc?.status === 'busy' && proc.statusAt === undefined))
        return { status: 'working', reason: 'process-busy' };
      return { status: 'asking', reason: hook.waits ?? 'approval' };
    case 'tool':
      if (hook.waits === 'question') return { status: 'asking', reason: 'question' };
      return proc?.toolRunning
        ? { status: 'working', reason: 'process-busy' }
        : { status: 'working', reason: 'turn-open' };
    case 'prompt':
    case 'tool-done':
      return { status: 'working', reason: 'turn-open' };
    case 'end':
      return { status: 'idle', reason: 'quiet' };
    case 'stop':
      return undefined;
  }
}

/** A session whose last turn ended at `endedAt`: done for a while (unread, where the harness records reading), then idle. */
function finished(s: Session, endedAt: number, processIdle: boolean, now: number, opts: StatusOptions): SessionStatus {
  // Where the harness records that the person read the session, that decides.
  if (s.viewedAt !== undefined)
    return s.viewedAt < endedAt ? { status: 'done', reason: 'unread' } : { status: 'idle', reason: 'read' };
  const reason = processIdle ? 'process-idle' : undefined;
  return now - endedAt < opts.doneForMs
    ? { status: 'done', reason: reason ?? 'recent' }
    : { status: 'idle', reason: reason ?? 'quiet' };
}
