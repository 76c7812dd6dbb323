// A SessionEvents sink that records every event, for reader tests.

import type { SessionEvents } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';

export type Recorded = [string, ...unknown[]];

export function recorder(): { events: SessionEvents; log: Recorded[]; memory: Map<string, Usage> } {
  const log: Recorded[] = [];
  const memory = new Map<string, Usage>();
  const rec = (name: string) => (...args: unknown[]) => void log.push([name, ...args]);
  const events: SessionEvents = {
    meta: rec('meta'), activity: rec('activity'), usage: rec('usage'), context: rec('context'), prompt: rec('prompt'),
    turnStarted: rec('turnStarted'), turnEnded: rec('turnEnded'), toolCall: rec('toolCall'), toolResult: rec('toolResult'),
    lines: rec('lines'), compaction: rec('compaction'), usageLimit: rec('usageLimit'), skipped: rec('skipped'),
    recall: (k) => memory.get(k),
    remember: (k, v) => void memory.set(k, v),
  };
  return { events, log, memory };
}
