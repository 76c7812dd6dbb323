// The figures above the session rows in `top` and on the live page: spend today and this week,
// the last 30 days' spend, the usage-limit windows, sessions by status, and the running token
// total (from which a viewer takes tokens per minute between two of its polls). Read from memory
// only, like a scrape (the spend history is whatever the caller hands in).

import { STATUSES, USAGE_WINDOWS } from '../session/vocabulary.js';
import { isReset } from '../store/limits.js';
import { countedSessions, type LiveSession } from '../store/live.js';
import { localDay } from '../store/spend.js';
import type { SessionStore } from '../store/store.js';
import type { Status } from '../session/types.js';

/** `/api/v1/summary` (documented in docs/commands.md). */
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
  /**
   * The usage-limit windows the harnesses reported, by harness then window. One past its reset
   * time is left out: it started over, and what it uses now is not reported yet. A viewer works out
   * the time to reset from `resets_at` itself, so this stays true between two renders.
   */
  limits: { harness: string; window: string; used_ratio: number; resets_at: string | null }[];
  /** Spend per local day over the last 30 (from the ledger), oldest first, today last; empty where no history is handed in. */
  spend_30d: { date: string; cost_usd: number }[];
}

/** Spend per local day (`YYYY-MM-DD`) from `first` to `last`, both included; a day without spend may be left out. */
export type SpendHistory = (first: string, last: string) => readonly { date: string; costUsd: number }[];

const HISTORY_DAYS = 30;

/** The last 30 local days, every one of them (a day without spend is 0). */
function spend30d(history: SpendHistory, now: number): Summary['spend_30d'] {
  const today = new Date(now);
  // By the calendar, not by 24-hour steps: a day of 23 or 25 hours is still one day.
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) =>
    localDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - (HISTORY_DAYS - 1 - i)).getTime()),
  );
  const spent = new Map<string, number>();
  for (const d of history(days[0]!, days[HISTORY_DAYS - 1]!)) spent.set(d.date, (spent.get(d.date) ?? 0) + d.costUsd);
  return days.map((date) => ({ date, cost_usd: spent.get(date) ?? 0 }));
}

function limitsOf(store: SessionStore, now: number): Summary['limits'] {
  const order = (w: string) => (USAGE_WINDOWS as readonly string[]).indexOf(w);
  return [...store.usageLimits.values()]
    .filter((l) => !isReset(l, now))
    .sort((a, b) => a.harness.localeCompare(b.harness) || order(a.window) - order(b.window))
    .map((l) => ({
      harness: l.harness,
      window: l.window,
      used_ratio: l.usedRatio,
      resets_at: l.resetsAt === undefined ? null : new Date(l.resetsAt * 1000).toISOString(),
    }));
}

/** `spendHistory`: the per-day ledger; without it `spend_30d` is empty. */
export function summaryOf(
  store: SessionStore,
  live: readonly LiveSession[],
  now: number,
  spendHistory?: SpendHistory,
): Summary {
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
  for (const c of store.counters.values()) if (c.metric === 'tokens') tokens += c.committed ?? 0;
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const { status } of countedSessions(store, live)) byStatus[status]++;
  return {
    generated_at: new Date(now).toISOString(),
    spend_today_usd: spendToday.reduce((a, s) => a + s.usd, 0),
    spend_week_usd: week,
    tokens_total: tokens,
    sessions_by_status: byStatus,
    spend_today: spendToday.sort((a, b) => b.usd - a.usd),
    limits: limitsOf(store, now),
    spend_30d: spendHistory ? spend30d(spendHistory, now) : [],
  };
}
