// Drift: a reader that fell behind its harness's file format counts no tokens for sessions that
// plainly did work. Such a session is a broken reader, not a free session.

import type { Session } from './types.js';

/** The session did work (finished turns, records of an unknown shape) and no tokens were counted for it. */
export function drifted(s: Session): boolean {
  const t = s.tokens;
  // An open turn may still be waiting for the answer that carries its tokens.
  return (s.work ?? 0) > 0 && s.turnStartedAt === undefined && t.input + t.output + t.cacheRead + t.cacheWrite === 0;
}
