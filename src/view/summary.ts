// The figures above the session rows in `top` and on the live page: spend today and this week,
// sessions by status, and the running token total (from which a viewer takes tokens per minute
// between two of its polls). Read from memory only, like a scrape.

import { STATUSES } from '../session/vocabulary.js';
import { countedSessions, type LiveSession } from '../store/live.js';
import { localDay } from '../store/spend.js';
import type { SessionStore } from '../store/store.js';
import type { Status } from '../session/types.js';

/** `/api/v1/summary` (documented in the README). */
export interface Summary {
  generated_at: string;
  spend_today_usd: number;
  /** Today and the six days before it. */
  spend_week_usd: number;
  /** Every token counted so far, of every harness (for a rate between two polls). */
  tokens_total: number;
  /** What coding_agent_sessions counts: the agents no session file is joined to among them. */
  sessions_by_status: Record<Status, number>;
  /** Today's spend by harness and project, largest first. */
  spend_today: { harness: string; project: string; usd: number }[];
}

export function summaryOf(store: SessionStore, live: readonly LiveSession[], now: number): Summary {
  const today = localDay(now);
  const spendToday = Object.entries(store.spend.days.get(today) ?? {}).map(([key, usd]) => {
    const [harness = '', project = ''] = key.split('\0');
    return { harness, project, usd };
  });
  let week = 0;
  for (let d = 0; d < 7; d++) {
    for (const usd of Object.values(store.spend.days.get(localDay(now - d * 86_400_000)) ?? {})) week += usd;
  }
  let tokens = 0;
  for (const c of store.counters.values()) if (c.metric === 'tokens') tokens += c.value;
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const { status } of countedSessions(store, live)) byStatus[status]++;
  return {
    generated_at: new Date(now).toISOString(),
    spend_today_usd: spendToday.reduce((a, s) => a + s.usd, 0),
    spend_week_usd: week,
    tokens_total: tokens,
    sessions_by_status: byStatus,
    spend_today: spendToday.sort((a, b) => b.usd - a.usd),
  };
}
