// The ledger (the state database's `ledger` table): what each harness, project and model used per
// quarter hour, kept `ledger.days` days, for the `report` command and the viewers' spend history. Filled
// by the sink from the same events as the counters, so it agrees with them, and rebuilt with them
// from the files still there on --reset-state. Only what changed since the last commit is held
// here (added to the table's rows by the commit): nothing is read on the scrape path.

import type { LedgerRow } from '../state/db.js';
import type { TurnOutcome } from '../session/types.js';
import { localDay } from './spend.js';

export const HOUR_MS = 3_600_000;
/**
 * The ledger's grain: a quarter of an hour. Every IANA zone's offset from UTC is a whole number of
 * quarters today (Kolkata +5:30, Kathmandu +5:45, Adelaide +9:30/+10:30: test/report/ledger.test.ts
 * checks them all), so a quarter falls on one calendar day in any zone, and a day is cut exactly.
 */
export const QUARTER_MS = HOUR_MS / 4;
export const DEFAULT_LEDGER_DAYS = 400;
const DAY_HOURS = 24;

/** A row of nothing: the start of what one quarter hour of one harness, project and model adds. */
/** A row of the ledger with nothing in it yet. */
export const emptyRow = (
  hour: number,
  quarter: number,
  harness: string,
  project: string,
  model: string,
): LedgerRow => ({
  hour,
  quarter,
  harness,
  project,
  model,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  costUsd: 0,
  requests: 0,
  sessions: 0,
  turnsCompleted: 0,
  turnsFailed: 0,
  turnsInterrupted: 0,
  firstMs: null,
  lastMs: null,
});

/** One model request, as the counters counted it. */
export interface LedgerRequest {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  /** Undefined for an unpriced model. */
  costUsd?: number;
  /** The session's first request. */
  firstOfSession: boolean;
}

const TURN_COLUMN = { completed: 'turnsCompleted', failed: 'turnsFailed', interrupted: 'turnsInterrupted' } as const;

/** Adds `q` to a row (`k` -1: takes it out); `request`: as a request (counted, and the session's first where it is). */
function put(r: LedgerRow, q: LedgerRequest, k: 1 | -1, request: boolean): void {
  r.input += k * q.input;
  r.output += k * q.output;
  r.cacheRead += k * q.cacheRead;
  r.cacheWrite += k * q.cacheWrite;
  r.reasoning += k * q.reasoning;
  r.costUsd += k * (q.costUsd ?? 0);
  if (!request) return;
  r.requests += k;
  if (q.firstOfSession) r.sessions += k;
}

/** A request's time in its row's first and last. */
function stamp(r: LedgerRow, ts: number): void {
  r.firstMs = r.firstMs === null ? ts : Math.min(r.firstMs, ts);
  r.lastMs = r.lastMs === null ? ts : Math.max(r.lastMs, ts);
}

export class Ledger {
  private readonly pending = new Map<string, LedgerRow>();
  /** The row added to last: a file's requests come in runs of one quarter hour, project and model (no key built for those). */
  private last?: LedgerRow;
  /** The first hour kept, as of the last prune; moved on once an hour at most. */
  private keptFrom = 0;

  /** `days`: how many days are kept (`ledger.days`); older hours are dropped, never added. */
  constructor(private readonly days = DEFAULT_LEDGER_DAYS) {}

  private row(ts: number, harness: string, project: string, model: string): LedgerRow | undefined {
    const q = Math.floor(ts / QUARTER_MS);
    const hour = Math.floor(q / 4);
    const quarter = q - hour * 4;
    const last = this.last;
    if (
      last &&
      last.hour === hour &&
      last.quarter === quarter &&
      last.model === model &&
      last.project === project &&
      last.harness === harness
    )
      return last;
    if (!Number.isFinite(hour) || hour < this.firstHour(Date.now())) return undefined;
    const key = `${q}\0${harness}\0${project}\0${model}`;
    let r = this.pending.get(key);
    if (!r) this.pending.set(key, (r = emptyRow(hour, quarter, harness, project, model)));
    return (this.last = r);
  }

  private firstHour(now: number): number {
    return Math.floor(now / HOUR_MS) - this.days * DAY_HOURS;
  }

  /**
   * A request at `ts`; with `earlier`, more of one put before at `earlier.at` (a response streamed
   * as several records): one request, of the quarter hour of its last part, where what was put
   * before moves (as ccusage counts a response: once, at the time of its largest record). The rows
   * of a commit are added to the table's, so a move out of a quarter committed already subtracts.
   */
  request(
    ts: number,
    harness: string,
    project: string,
    model: string,
    q: LedgerRequest,
    earlier?: { at: number; part: LedgerRequest },
  ): void {
    if (earlier && Math.floor(earlier.at / QUARTER_MS) !== Math.floor(ts / QUARTER_MS)) {
      const from = this.row(earlier.at, harness, project, model);
      const to = this.row(ts, harness, project, model);
      // A quarter no longer kept: what it holds stays there.
      if (from && to) {
        put(from, earlier.part, -1, true);
        put(to, earlier.part, 1, true);
        stamp(to, ts);
      }
    }
    const r = this.row(ts, harness, project, model);
    if (!r) return;
    put(r, q, 1, !earlier);
    stamp(r, ts);
  }

  turn(ts: number, harness: string, project: string, model: string, outcome: TurnOutcome): void {
    const r = this.row(ts, harness, project, model);
    if (r) r[TURN_COLUMN[outcome]]++;
  }

  /** What the next commit adds, and the hour before which rows are deleted (when it moved). */
  changes(now = Date.now()): { ledger: LedgerRow[]; ledgerBefore?: number } {
    const first = this.firstHour(now);
    const prune = first > this.keptFrom ? first : undefined;
    return { ledger: [...this.pending.values()], ...(prune !== undefined ? { ledgerBefore: prune } : {}) };
  }

  committed(changes: { ledgerBefore?: number }): void {
    this.pending.clear();
    this.last = undefined;
    if (changes.ledgerBefore !== undefined) this.keptFrom = changes.ledgerBefore;
  }
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** `timeZone`'s offset from UTC at `ts` in minutes (undefined: the system's); NaN with seconds (none today). */
function offsetAt(ts: number, timeZone?: string): number {
  if (timeZone === undefined) return -new Date(ts).getTimezoneOffset();
  if (timeZone === 'UTC') return 0;
  let f = offsetFormats.get(timeZone);
  if (!f) offsetFormats.set(timeZone, (f = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' })));
  // GMT, GMT+05:30, GMT-09:30, GMT+05:53:28.
  const m = /([+-])(\d\d):(\d\d)(:\d\d)?$/.exec(
    f.formatToParts(ts).find((p) => p.type === 'timeZoneName')?.value ?? '',
  );
  return !m ? 0 : m[4] ? Number.NaN : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * `timeZone`'s offsets from UTC (undefined: the system's) over the hours from `firstHour` to
 * `lastHour`, in quarters of an hour, each from the quarter (since the epoch) it starts at: the
 * first from `firstHour`'s. Undefined where one is not whole quarters (none today). One look a
 * day finds each change (an offset lasts months), then its quarter.
 */
export function zoneOffsets(
  timeZone: string | undefined,
  firstHour: number,
  lastHour: number,
  now = Date.now(),
): { from: number; quarters: number }[] | undefined {
  const quartersAt = (q: number) => offsetAt(q * QUARTER_MS, timeZone) / 15;
  // Looked up over the hours a ledger can hold (up to two days ahead, ten years back): a row
  // outside, none the exporter writes, takes the nearest offset, not a look a day (an hour of
  // 1e12 in a damaged file would take ages).
  const lastKept = Math.min(lastHour, Math.floor(now / HOUR_MS) + 2 * DAY_HOURS);
  const first = Math.max(firstHour, lastKept - 10 * 366 * DAY_HOURS) * 4;
  const last = Math.max(lastKept * 4 + 3, first);
  const offsets = [{ from: first, quarters: quartersAt(first) }];
  for (let q = first; q < last;) {
    const next = Math.min(q + DAY_HOURS * 4, last);
    const quarters = quartersAt(next);
    if (quarters !== offsets.at(-1)!.quarters) {
      let [lo, hi] = [q, next]; // the change is after lo, at or before hi
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (quartersAt(mid) === quarters) hi = mid;
        else lo = mid;
      }
      offsets.push({ from: hi, quarters });
    }
    q = next;
  }
  return offsets.every((o) => Number.isInteger(o.quarters)) ? offsets : undefined;
}

/**
 * How many quarters of an hour a report in `timeZone` (undefined: the system's) may sum into one
 * row over the hours from `firstHour` to `lastHour`: 4 where every offset the zone had is whole
 * hours (UTC, Europe, the Americas: no more rows than a ledger of hours), 2 where some is a half
 * (Kolkata, Adelaide), 1 otherwise (Kathmandu): so many never straddle a midnight.
 */
export function quartersPerRow(timeZone: string | undefined, firstHour: number, lastHour: number): number {
  const offsets = zoneOffsets(timeZone, firstHour, lastHour);
  if (!offsets) return 1;
  return offsets.every((o) => o.quarters % 4 === 0) ? 4 : offsets.every((o) => o.quarters % 2 === 0) ? 2 : 1;
}

/** When a row of the ledger starts (ms): its hour's quarter. */
export const rowStart = (r: Pick<LedgerRow, 'hour' | 'quarter'>): number => r.hour * HOUR_MS + r.quarter * QUARTER_MS;

/** The calendar day (`YYYY-MM-DD`) of a time (ms) in `timeZone` (an IANA name; undefined: the system's). */
export function dayOf(ts: number, timeZone?: string): string {
  // Without Intl where it is not needed: its first formatter loads the zone data (30 ms and more).
  if (timeZone === undefined) return localDay(ts);
  if (timeZone === 'UTC') return new Date(ts).toISOString().slice(0, 10);
  const zone = timeZone;
  let f = dayFormats.get(zone);
  // en-CA writes a date as YYYY-MM-DD.
  if (!f)
    dayFormats.set(
      zone,
      (f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return f.format(ts);
}

/** The ledger's hours that can fall on the days from `since` to `until` (YYYY-MM-DD) in any time zone. */
export function hoursOfDays(
  since: string | undefined,
  until: string | undefined,
): { fromHour: number; toHour: number } {
  const edge = 26; // hours: the widest offset from UTC (+14, -12) and then some
  return {
    fromHour: since ? Date.parse(`${since}T00:00:00Z`) / HOUR_MS - edge : 0,
    toHour: until ? Date.parse(`${until}T00:00:00Z`) / HOUR_MS + DAY_HOURS + edge : Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Spend (USD) per calendar day from `since` to `until` (YYYY-MM-DD, both included) in `timeZone`
 * (undefined: the system's), every day of the range listed (0 where nothing was spent): the
 * viewers' chart of the last 30 days. `ledger` is the state database's (`StateDb.ledger`), which
 * holds what was committed: call it after a commit (`SessionStore.onChange`), not on a scrape.
 */
export function spendByDay(
  ledger: (fromHour: number, toHour: number) => LedgerRow[],
  since: string,
  until: string,
  timeZone?: string,
): { date: string; costUsd: number }[] {
  const spend = new Map<string, number>();
  for (let t = Date.parse(`${since}T12:00:00Z`); ; t += DAY_HOURS * HOUR_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day > until) break;
    spend.set(day, 0);
  }
  const { fromHour, toHour } = hoursOfDays(since, until);
  for (const r of ledger(fromHour, toHour)) {
    const day = dayOf(rowStart(r), timeZone);
    const sum = spend.get(day);
    if (sum !== undefined) spend.set(day, sum + r.costUsd);
  }
  return [...spend].map(([date, costUsd]) => ({ date, costUsd }));
}
