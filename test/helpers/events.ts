// A SessionEvents sink that records every event, for reader tests.

import type { SessionEvents } from '../../src/readers/reader.js';

export type Recorded = [string, ...unknown[]];

/** `seen`: the keys of one collector, shared by the recorders of its sessions. */
export function recorder(seen = new Set<string>()): { events: SessionEvents; log: Recorded[] } {
  const log: Recorded[] = [];
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
