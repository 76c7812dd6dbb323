// Reports from a team's store (`report --from`): the counters every exporter's samples put in
// Prometheus or VictoriaMetrics, read at each day's bounds and subtracted. Not PromQL's increase(),
// which extrapolates to the window's edges: a day's usage is the counter's value at the day's end
// less its value at the day's start, both the last sample at or before that instant, a drop being
// a reset (the exporter's state reset) after which the new value is all growth, as Prometheus's
// resets() reads one. Pure: the command queries the store and gives what these need.

import type { LedgerRow } from '../state/db.js';
import { emptyRow } from '../store/ledger.js';

/** The counters a report sums, and the ledger's field each (or each token type) goes into. */
export const STORE_COUNTERS = {
  coding_agent_tokens_total: { input: 'input', output: 'output', cache_read: 'cacheRead', cache_write: 'cacheWrite' },
  coding_agent_reasoning_tokens_total: 'reasoning',
  coding_agent_cost_usd_total: 'costUsd',
} as const satisfies Record<string, string | Record<string, keyof LedgerRow>>;
export type StoreCounter = keyof typeof STORE_COUNTERS;

type Field = 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning' | 'costUsd';

const DAY_MS = 86_400_000;
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) an instant falls on in `timeZone` (undefined: the system's). */
export function dayAt(ms: number, timeZone?: string): string {
  const key = timeZone ?? '';
  let f = dayFormats.get(key);
  // en-CA writes a date as YYYY-MM-DD.
  if (!f)
    dayFormats.set(
      key,
      (f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return f.format(ms);
}

/**
 * The first instant (ms) of `day` in `timeZone`: found, not computed from an offset, so that a day
 * of any IANA zone is right (half and quarter hours, a summer-time change at midnight that skips
 * 00:00, a zone that moved across the date line). Every zone's midnight is within 15 hours of
 * UTC's, and the day an instant falls on only grows with it.
 */
export function dayStart(day: string, timeZone?: string): number {
  let lo = Date.parse(`${day}T00:00:00Z`) - 15 * 3_600_000;
  let hi = lo + 30 * 3_600_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (dayAt(mid, timeZone) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The days from `since` to `until` (both included), in order. */
export function daysFrom(since: string, until: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T12:00:00Z`); ; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day > until) return days;
    days.push(day);
  }
}

/**
 * What a series grew by between consecutive bounds: `values[i]` is its last value at or before
 * bound i (undefined: no sample since the bound before, or, for bound 0, none in the look back
 * before it). No sample in a day is no growth (an exporter asleep over midnight is not counted
 * again); a series with no value before is counted from 0 (a series appears at its first
 * increment); a drop is a reset, the new value all growth. `samples[i]`, where a day had a reset
 * inside it, are that day's samples (from bound i to bound i + 1): each step is counted, so that
 * what grew before the reset is too.
 */
export function growth(
  values: readonly (number | undefined)[],
  samples: readonly (readonly number[] | undefined)[] = [],
): number[] {
  const out: number[] = [];
  let before = values[0] ?? 0;
  for (let i = 1; i < values.length; i++) {
    let grew = 0;
    for (const v of samples[i - 1] ?? (values[i] === undefined ? [] : [values[i]!])) {
      grew += v >= before ? v - before : v;
      before = v;
    }
    out.push(grew);
  }
  return out;
}

/** A series of the store: its labels and its last value at each bound (see `growth`). */
export interface StoreSeries {
  counter: StoreCounter;
  labels: Readonly<Record<string, string>>;
  values: (number | undefined)[];
  /** The samples of each day with a reset inside it (see `growth`). */
  samples?: (number[] | undefined)[];
}

/** A day's usage of one set of labels (the token type left out), as the ledger's rows, with every label kept. */
export type StoreRow = LedgerRow & { day: string; labels: Readonly<Record<string, string>> };

/**
 * The rows of the days whose bounds the series were read at (`days[i]` runs from bound i to bound
 * i + 1): a row per day and set of labels (without the token type), requests, sessions and turns
 * 0 (the store has none of them by model: the report leaves them out).
 */
export function storeRows(series: readonly StoreSeries[], days: readonly string[]): StoreRow[] {
  const rows = new Map<string, StoreRow>();
  for (const s of series) {
    const { token_type: tokenType, ...labels } = s.labels;
    const into = STORE_COUNTERS[s.counter];
    const field: Field | undefined =
      typeof into === 'string'
        ? into
        : tokenType !== undefined
          ? (into as Record<string, Field>)[tokenType]
          : undefined;
    if (field === undefined) continue;
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
    growth(s.values, s.samples).forEach((grew, i) => {
      if (grew === 0) return;
      const id = `${days[i]}\n${key}`;
      let row = rows.get(id);
      if (!row) {
        rows.set(
          id,
          (row = {
            day: days[i]!,
            labels,
            ...emptyRow(0, 0, labels.harness ?? '', labels.project ?? '', labels.model ?? ''),
          }),
        );
      }
      row[field] += grew;
    });
  }
  return [...rows.values()];
}
