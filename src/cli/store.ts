// `report --from`: a team's usage from its store (Prometheus, VictoriaMetrics, anything that
// answers Prometheus's query API). Each counter is read at every bound of the report's days (in
// its time zone, report/store.ts's dayStart) as the last sample at or before it, one instant
// query per counter and bound, and report/store.ts subtracts; a day a counter dropped in
// (resets() > 0) is read sample by sample for that series.

import {
  dayAt,
  dayStart,
  daysFrom,
  STORE_COUNTERS,
  storeRows,
  type StoreCounter,
  type StoreRow,
  type StoreSeries,
} from '../report/store.js';
import type { ReportArgs } from './args.js';
import { httpClient } from './http.js';

/** Without --since (or --last): the last 30 days, today's included. */
const DEFAULT_DAYS = 30;
/** How far before the first day a series' last value is looked for: older than that, it counts from 0. */
const LOOK_BACK_MS = 7 * 86_400_000;
/** Queries in flight at once: a store is shared, and 31 days are 189 queries. */
const PARALLEL = 4;

interface Vector {
  status: string;
  error?: string;
  data?: {
    resultType: string;
    result: { metric: Record<string, string>; value: [number, string]; values?: [number, string][] }[];
  };
}

/** Runs the jobs, PARALLEL at a time. */
async function inParallel(jobs: (() => Promise<void>)[]): Promise<void> {
  const next = async (): Promise<void> => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job();
  };
  await Promise.all(Array.from({ length: PARALLEL }, next));
}

/** A label matcher's value in PromQL's double quotes. */
const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/** The rows of the days from `since` to `until` (today at the latest), each day's usage per set of labels. */
export async function readStore(r: ReportArgs & { from: string }, now = Date.now()): Promise<StoreRow[]> {
  const http = httpClient(r.from, 30_000);
  const today = dayAt(now, r.timeZone);
  const until = r.until && r.until < today ? r.until : today;
  const since =
    r.since ?? dayAt(dayStart(until, r.timeZone) - (DEFAULT_DAYS - 1) * 86_400_000 + 12 * 3_600_000, r.timeZone);
  const days = daysFrom(since, until);
  if (days.length === 0) return [];
  // Bound i starts day i; the last ends the last day (or is now, for today).
  const after = new Date(Date.parse(`${until}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const bounds = [...days, after].map((d) => Math.min(dayStart(d, r.timeZone), now));
  const matchers = (['harness', 'project', 'model'] as const)
    .filter((k) => r[k] !== undefined)
    .map((k) => `${k}=${quoted(r[k]!)}`)
    .join(',');

  const series = new Map<string, StoreSeries>();
  const seriesOf = (counter: StoreCounter, metric: Record<string, string>) => {
    const labels = Object.fromEntries(Object.entries(metric).filter(([k]) => k !== '__name__'));
    const key = `${counter}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = { counter, labels, values: bounds.map(() => undefined) }));
    return s;
  };
  const vector = async (query: string, at: number) => {
    const v = (await http.get(
      `/api/v1/query?query=${encodeURIComponent(query)}&time=${(at / 1000).toFixed(3)}`,
    )) as Vector;
    if (v.status !== 'success' || !v.data || !['vector', 'matrix'].includes(v.data.resultType))
      throw new Error(`${http.origin}: ${query}: ${v.error ?? 'no vector'}`);
    return v.data.result;
  };
  // Day i - 1 of a series whose counter dropped inside it: its samples, read once the values are.
  const reset: { counter: StoreCounter; metric: Record<string, string>; i: number }[] = [];
  await inParallel(
    Object.keys(STORE_COUNTERS).flatMap((name) =>
      bounds.map((at, i) => async () => {
        const counter = name as StoreCounter;
        const window = i === 0 ? LOOK_BACK_MS : at - bounds[i - 1]!;
        if (window <= 0) return;
        const selector = `${counter}{${matchers}}[${window}ms]`;
        for (const { metric, value } of await vector(`last_over_time(${selector})`, at))
          seriesOf(counter, metric).values[i] = Number(value[1]);
        if (i > 0)
          for (const { metric } of await vector(`resets(${selector}) > 0`, at)) reset.push({ counter, metric, i });
      }),
    ),
  );
  await inParallel(
    reset.map(({ counter, metric, i }) => async () => {
      const s = seriesOf(counter, metric);
      const exact = Object.entries(s.labels)
        .map(([k, v]) => `${k}=${quoted(v)}`)
        .join(',');
      const [raw] = await vector(`${counter}{${exact}}[${bounds[i]! - bounds[i - 1]!}ms]`, bounds[i]!);
      (s.samples ??= [])[i - 1] = (raw?.values ?? []).map(([, v]) => Number(v));
    }),
  );
  return storeRows([...series.values()], days);
}
