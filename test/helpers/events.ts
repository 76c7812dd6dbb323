// A SessionEvents sink that records every event, and the turns such a record makes in a real store, for reader tests.

import { createPriceTable } from '../../src/pricing/prices.js';
import type { SessionEvents } from '../../src/session/events.js';
import { SessionStore } from '../../src/store/store.js';
import type { HarnessId, Session, UsagePart } from '../../src/session/types.js';
import { FileSink } from '../../src/store/sink.js';
import { StateDb } from '../../src/state/db.js';

export type Recorded = [string, ...unknown[]];

/** The events of one kind in a recorded log, in order. */
export const eventsNamed = (log: unknown[][], name: string): unknown[][] => log.filter(([e]) => e === name);

/** `seen`: the keys of one collector, shared by the recorders of its sessions. */
export function recorder(seen = new Set<string>()): { events: SessionEvents; log: Recorded[] } {
  const log: Recorded[] = [];
  const rec =
    (name: string) =>
    (...args: unknown[]) =>
      void log.push([name, ...args]);
  const events: SessionEvents = {
    meta: rec('meta'),
    activity: rec('activity'),
    usage: rec('usage'),
    context: rec('context'),
    prompt: rec('prompt'),
    turnStarted: rec('turnStarted'),
    turnEnded: rec('turnEnded'),
    turnReopened: rec('turnReopened'),
    toolCall: rec('toolCall'),
    toolResult: rec('toolResult'),
    toolWaits: rec('toolWaits'),
    subagent: rec('subagent'),
    archived: rec('archived'),
    lines: rec('lines'),
    premiumRequests: rec('premiumRequests'),
    compaction: rec('compaction'),
    usageLimit: rec('usageLimit'),
    viewed: rec('viewed'),
    asks: rec('asks'),
    todos: rec('todos'),
    skipped: rec('skipped'),
    firstTime: (k) => !seen.has(k) && Boolean(seen.add(k)),
    record: rec('record'),
  };
  return { events, log };
}

/** A store as a report's own read makes it (`ledgerOnly`): it commits the ledger alone. */
export function ledgerOnlyStore(db: StateDb): SessionStore {
  return new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 }, undefined, undefined, true);
}

type Turn = NonNullable<Session['lastTurn']>;

/**
 * The turns recorded events make in a real session store: each turn as it is counted, in order
 * (an end the store ignores, with no turn open or of a reopened turn, is none; a turn a new one
 * ends first, `turnStarted`'s `endOpenAs`, is one), and the last session's turn at the end.
 * `sessions`: the session of each event, where they are not all one session's.
 */
export function storeTurns(log: Recorded[], sessions?: string[]): { counted: Turn[]; last?: Turn; open: boolean } {
  const store = new SessionStore(new StateDb(':memory:'), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  let session = 's';
  const ev = sinkOf(
    store,
    'claude-code',
    () => session,
    'test',
    () => {},
  );
  const turns = () => [...store.counters.values()].filter((c) => c.metric === 'turns').reduce((n, c) => n + c.value, 0);
  const counted: Turn[] = [];
  log.forEach(([name, ...args], i) => {
    if (name !== 'turnStarted' && name !== 'turnEnded' && name !== 'turnReopened') return;
    session = sessions?.[i] ?? session;
    const before = turns();
    (ev[name] as (...a: unknown[]) => void)(...args);
    // One event ends one turn at most: the session's last.
    if (turns() > before) counted.push(store.sessions.get(`claude-code/${session}`)!.lastTurn!);
  });
  const s = store.sessions.get(`claude-code/${session}`);
  return { counted, last: s?.lastTurn, open: s?.turnStartedAt !== undefined };
}

/** The outcomes of the turns recorded events make, as they are counted (storeTurns). */
export const countedTurns = (log: Recorded[], sessions?: string[]): string[] =>
  storeTurns(log, sessions).counted.map((t) => t.outcome);

/** The store's sink for one file's events (`FileSink`), its source named in order. */
export function sinkOf(
  store: SessionStore,
  harness: HarnessId,
  sessionOf: () => string,
  collector: string,
  onSkip: (reason: string) => void,
  unrecorded?: readonly UsagePart[],
): SessionEvents & Pick<FileSink, 'beginLine'> {
  return new FileSink(store, { harness, sessionOf, collector, onSkip, unrecorded });
}
