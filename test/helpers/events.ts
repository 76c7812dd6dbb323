// A SessionEvents sink that records every event, for reader tests.

import { TURN_OUTCOMES } from '../../src/metrics/catalog.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import type { SessionEvents } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/session/store.js';
import type { Session } from '../../src/session/types.js';
import { StateDb } from '../../src/state/db.js';

export type Recorded = [string, ...unknown[]];

export function recorder(): { events: SessionEvents; log: Recorded[] } {
  const log: Recorded[] = [];
  const seen = new Set<string>();
  const rec = (name: string) => (...args: unknown[]) => void log.push([name, ...args]);
  const events: SessionEvents = {
    meta: rec('meta'), activity: rec('activity'), usage: rec('usage'), context: rec('context'), prompt: rec('prompt'),
    turnStarted: rec('turnStarted'), turnEnded: rec('turnEnded'), turnReopened: rec('turnReopened'), toolCall: rec('toolCall'), toolResult: rec('toolResult'),
    toolWaits: rec('toolWaits'), subagent: rec('subagent'), archived: rec('archived'),
    lines: rec('lines'), premiumRequests: rec('premiumRequests'), compaction: rec('compaction'), usageLimit: rec('usageLimit'), viewed: rec('viewed'), todos: rec('todos'), skipped: rec('skipped'),
    firstTime: (k) => !seen.has(k) && Boolean(seen.add(k)),
    record: rec('record'),
  };
  return { events, log };
}

/**
 * The turns one session's recorded events make in a real session store: the outcome of each turn
 * as it is counted, in order (an end the store ignores, with no turn open or of a reopened turn,
 * is none; a turn a new one ends first, `turnStarted`'s `endOpenAs`, is one), and the session's
 * turn at the end.
 */
export function storeTurns(log: Recorded[]): { counted: string[]; last: Session['lastTurn']; open: boolean } {
  const store = new SessionStore(new StateDb(':memory:'), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const ev = store.events('claude-code', () => 's', 'test', () => {});
  const count = (outcome: string) => [...store.counters.values()].find((c) => c.metric === 'turns' && c.labels.outcome === outcome)?.value ?? 0;
  const counted: string[] = [];
  for (const [name, ...args] of log) {
    if (name !== 'turnStarted' && name !== 'turnEnded' && name !== 'turnReopened') continue;
    const before = TURN_OUTCOMES.map(count);
    (ev[name] as (...a: unknown[]) => void)(...args);
    // One event ends one turn at most.
    const ended = TURN_OUTCOMES.find((o, i) => count(o) > before[i]!);
    if (ended) counted.push(ended);
  }
  const s = store.sessions.get('claude-code/s');
  return { counted, last: s?.lastTurn, open: s?.turnStartedAt !== undefined };
}

/** The outcomes of the turns one session's recorded events make, as counted (storeTurns). */
export const countedTurns = (log: Recorded[]): string[] => storeTurns(log).counted;
