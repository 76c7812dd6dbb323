// Harnesses that keep running totals per session (a database row updated in place: Hermes,
// Kodelet, goose, Crush) instead of a record per model call. What counts is the growth since the
// totals were last counted; the marks of what was counted live in the reader's state, which is
// committed together with the counters. Totals already seen count nothing, also when the state
// was lost (a store read again from the start).

import type { SessionEvents } from '../session/events.js';
import { MAX_TOKENS, plausibleAmount, plausibleCount, type Usage, type UsagePart } from '../session/types.js';

/** The highest totals counted so far, per session row (or conversation). */
export type Marks = Record<string, number[]>;

/**
 * Each field's growth over its mark, never below 0; the marks move to the highest value seen, so
 * a total rewritten lower (a harness that recomputed it) is not counted again when it grows back.
 */
export function growth(marks: Marks, key: string, totals: readonly number[]): number[] {
  const prev = marks[key] ?? [];
  const delta = totals.map((v, i) => Math.max(0, v - (prev[i] ?? 0)));
  marks[key] = totals.map((v, i) => Math.max(v, prev[i] ?? 0));
  return delta;
}

/**
 * Token counts as a database gives them: plausible counts (whole numbers from 0 to below 2^40),
 * NULL (or absent) as 0. Undefined when one is anything else (text, a negative, fractional or
 * huge number): the record is skipped, not half counted, and its totals are never kept as marks
 * (one 1e308 would stop all later counting).
 */
export function tokenCounts(values: readonly unknown[]): number[] | undefined {
  const out: number[] = [];
  for (const v of values) {
    const n = typeof v === 'bigint' && v >= 0n && v < BigInt(MAX_TOKENS) ? Number(v) : v;
    if (n === null || n === undefined) out.push(0);
    else if (typeof n === 'number' && plausibleCount(n)) out.push(n);
    else return undefined;
  }
  return out;
}

/** A recorded dollar amount: a plausible amount; NULL (not recorded) is undefined; NaN for a bad value. */
export function dollars(v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  return typeof v === 'number' && plausibleAmount(v) ? v : Number.NaN;
}

/**
 * Reports the growth of a session's running totals under `key`. `costUsd` is the harness's running
 * cost where it records one above 0 (its growth is the cost of the new tokens); otherwise the
 * tokens are priced at list prices. `unsaid`: token types the totals do not hold.
 */
export function countGrowth(
  ev: SessionEvents,
  marks: Marks,
  key: string,
  model: string,
  totals: Usage,
  costUsd: number | undefined,
  ts: number,
  unsaid?: readonly UsagePart[],
): void {
  const recorded = costUsd !== undefined && costUsd > 0;
  const values = [
    totals.input,
    totals.output,
    totals.cacheRead,
    totals.cacheWrite,
    totals.reasoning,
    recorded ? costUsd : 0,
  ];
  const seen = !ev.firstTime(`totals:${key}:${values.join(',')}`);
  // The marks move either way: totals already counted (the state lost) are not counted again.
  const [input, output, cacheRead, cacheWrite, reasoning, cost] = growth(marks, key, values) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (seen || !(input || output || cacheRead || cacheWrite || reasoning || cost)) return;
  ev.usage(
    model,
    { input, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning },
    input + cacheRead + cacheWrite,
    ts,
    recorded ? cost : undefined,
    unsaid,
  );
}

/**
 * A row whose totals are not counts is skipped on every read, but counted as skipped
 * (`implausible_value`) once per version of it (rows holding running totals are read again while
 * they change).
 */
export function skipTotals(ev: SessionEvents, key: string, values: readonly unknown[]): void {
  if (ev.firstTime(`bad:${key}:${values.map(String).join(',')}`)) ev.skipped('implausible_value');
}
