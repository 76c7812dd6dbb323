// Delta temporality over our cumulative totals: each push carries what each counter gained since
// the last push the receiver took. What it took is kept in the state database (kv rows
// `otlp-delta:<series>` and `otlp-delta-since`, the end of that push) and moves only when a push
// succeeds: after a restart the first push sends only what came since, and the gains of a push
// that failed go with the next one that works. The receiver adds up exactly the totals.
//
// Counters of the process alone (the catalog's `perProcess`) start over with each process: what
// was taken of them is kept in memory only, and their deltas start no earlier than the process.

import type { HrTime } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { StateDb } from '../state/db.js';
import { catalog } from '../catalog.js';

const SERIES = 'otlp-delta:';
const SINCE = 'otlp-delta-since';

const PER_PROCESS = new Set(
  Object.values(catalog)
    .filter((d) => d.perProcess)
    .map((d) => d.name),
);

/** A series' key whatever the order its attributes were built in. */
const seriesKey = (name: string, attributes: object) =>
  `${name}${JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)))}`;

const earlier = (a: HrTime, b: HrTime) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/**
 * No answer within the timeout to a push that was sent: OTLP/HTTP's timeout starts once the
 * connection is open (a connection that never opens fails as ETIMEDOUT, not taken); gRPC's
 * deadline (DEADLINE_EXCEEDED, code 4) also covers a connection still opening.
 */
const unanswered = (r: ExportResult) =>
  r.error?.message === 'Request timed out' || (r.error as { code?: unknown } | undefined)?.code === 4;

/** What one push would have the receiver take: each series' total, and the push's end. */
interface Taken {
  totals: { key: string; value: number; perProcess: boolean }[];
  end?: HrTime;
}

/** Sends counters as deltas from what the receiver took; everything else as it comes. */
export class DeltaExporter implements PushMetricExporter {
  /** Each series' total as of the last push taken. */
  private readonly taken = new Map<string, number>();
  /** The end of the last push taken; undefined before the first. */
  private since?: HrTime;
  private sending = false;

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly db: StateDb,
  ) {
    for (const { key, value } of db.kv()) {
      if (key.startsWith(SERIES)) this.taken.set(key.slice(SERIES.length), JSON.parse(value) as number);
      if (key === SINCE) this.since = JSON.parse(value) as HrTime;
    }
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    // The SDK stops waiting for a push at its timeout while the push goes on and may yet be taken:
    // a second one from the same baseline would send the same gains twice. This one is not sent;
    // the next push carries its gains.
    if (this.sending)
      return done({ code: ExportResultCode.FAILED, error: new Error('the previous push is not answered yet') });
    this.sending = true;
    const taken: Taken = { totals: [] };
    const deltas = {
      ...metrics,
      scopeMetrics: metrics.scopeMetrics.map((sm) => ({ ...sm, metrics: sm.metrics.map((m) => this.delta(m, taken)) })),
    };
    this.inner.export(deltas, (result) => {
      this.sending = false;
      if (result.code === ExportResultCode.SUCCESS) return done(this.advance(taken));
      if (!unanswered(result)) return done(result);
      const recorded = this.advance(taken);
      done(
        recorded.code !== ExportResultCode.SUCCESS
          ? recorded
          : {
              code: ExportResultCode.FAILED,
              error: new Error(
                `${result.error!.message}: counted as taken, its gains are not sent again (a receiver that lost it misses them)`,
              ),
            },
      );
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  /** A counter as its gains since the last push taken; gauges and histograms pass unchanged. */
  private delta(m: MetricData, taken: Taken): MetricData {
    if (m.dataPointType !== DataPointType.SUM) return m;
    const perProcess = PER_PROCESS.has(m.descriptor.name);
    const dataPoints = m.dataPoints.map((p) => {
      const key = seriesKey(m.descriptor.name, p.attributes);
      const before = this.taken.get(key) ?? 0;
      // A total below what was taken: gains pushed just before a crash, before the store committed
      // them, are being read again. Nothing is new until it is back where it was.
      taken.totals.push({ key, value: Math.max(before, p.value), perProcess });
      taken.end = p.endTime;
      const start = this.since && !(perProcess && earlier(this.since, p.startTime)) ? this.since : p.startTime;
      return { ...p, startTime: start, value: Math.max(0, p.value - before) };
    });
    return { ...m, aggregationTemporality: AggregationTemporality.DELTA, dataPoints };
  }

  /**
   * The push was taken: the next deltas start from it. A state database that cannot record it
   * fails the push in the log (the receiver has it: only a restart would send it again).
   */
  private advance({ totals, end }: Taken): ExportResult {
    if (!end) return { code: ExportResultCode.SUCCESS }; // no counter in it
    const kv = totals
      .filter((t) => !t.perProcess && this.taken.get(t.key) !== t.value)
      .map((t) => ({ key: `${SERIES}${t.key}`, value: JSON.stringify(t.value) }));
    for (const t of totals) this.taken.set(t.key, t.value);
    this.since = end;
    try {
      this.db.commit({
        files: [],
        removedFiles: [],
        sessions: [],
        counters: [],
        seen: [],
        kv: [...kv, { key: SINCE, value: JSON.stringify(end) }],
      });
      return { code: ExportResultCode.SUCCESS };
    } catch (e) {
      return {
        code: ExportResultCode.FAILED,
        error: new Error(`taken, but not recorded in the state database: ${(e as Error).message}`),
      };
    }
  }
}
