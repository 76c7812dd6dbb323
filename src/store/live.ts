// The sessions worth showing now: those active within the activity window, each with its status
// (from its record and its live process) and whether its reader fell behind. What /metrics, the
// API, the page, `top` and `sessions` all start from, so they agree.

import { drifted } from '../session/drift.js';
import { statusOf, type SessionStatus, type StatusOptions } from '../session/status.js';
import type { ProcessState, Status } from '../session/types.js';
import type { SessionStore, StoredSession } from './store.js';

export interface LiveOptions {
  status: StatusOptions;
  /** Sessions with activity within this window count in coding_agent_sessions. */
  activeWindowMs: number;
}

export interface LiveSession {
  session: StoredSession;
  status: SessionStatus;
  /** The live process that owns the session, where one does. */
  process?: ProcessState;
  /** The reader counted no tokens for the work the session did (drift). */
  drift: boolean;
}

/** Sessions active within the window and not archived, with their status, most recently active first. */
export function liveSessions(store: SessionStore, now: number, opts: LiveOptions): LiveSession[] {
  const live: LiveSession[] = [];
  const view = store.processes;
  for (const [key, s] of store.sessions) {
    if (s.archived || now - s.lastActivityAt > opts.activeWindowMs) continue;
    const proc = view.owners.get(key);
    const visible = view.visible.has(s.harness) && !view.elsewhere.has(key) && !s.hosted;
    live.push({
      session: s,
      status: statusOf(
        s,
        { visible, proc, hook: store.hooks.get(key) },
        now,
        opts.status,
        store.harnessFacts.get(s.harness),
      ),
      process: proc,
      drift: drifted(s),
    });
  }
  return live.sort((a, b) => b.session.lastActivityAt - a.session.lastActivityAt);
}

/**
 * What coding_agent_sessions counts, one entry per session: every live session by its status, and
 * every agent no session file is joined to, by the CPU its process tree uses. The summary counts
 * the same, so `top` and the live page agree with /metrics.
 */
export function countedSessions(
  store: SessionStore,
  live: readonly LiveSession[],
): { harness: string; project: string; status: Status }[] {
  return [
    ...live.map(({ session: s, status }) => ({ harness: s.harness, project: s.project, status: status.status })),
    ...store.processes.unowned.map((a) => ({
      harness: a.harness,
      project: a.project,
      status: a.busy ? ('working' as const) : ('idle' as const),
    })),
  ];
}
