// The OTLP push itself, loaded only when a push is configured: OpenTelemetry's SDK and exporters
// are most of the modules this process could load, and `once` or a scrape-only exporter needs
// none of them.

import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { Config } from '../config/load.js';
import type { ExportLog, OtlpOptions } from './otlp.js';
import { genaiLatest, ViewsProducer, type ViewInputs } from './views.js';

export interface Push {
  shutdown(): Promise<void>;
}

/**
 * Pushes the snapshot (and the configured views of it) every interval until shut down, with the
 * resource attributes given.
 */
export async function startPush(
  inputs: () => ViewInputs,
  opts: OtlpOptions,
  log: ExportLog,
  settings: { otel: Config['otel']; resource: Record<string, string>; env: NodeJS.ProcessEnv; startMs: number },
): Promise<Push> {
  const views = { ...settings.otel, genaiLatest: genaiLatest(settings.env) };
  const reader = await otlpReader(new ViewsProducer(inputs, views, settings.startMs), opts, log);
  return new MeterProvider({ resource: resourceFromAttributes(settings.resource), readers: [reader] });
}

/**
 * Delta temporality over a cumulative producer: each export carries what counters gained since
 * the previous export (gauges pass through). The SDK does not convert producer data itself.
 */
class DeltaProducer implements MetricProducer {
  private last = new Map<string, number>();
  private lastTime: [number, number] | undefined;

  constructor(private readonly inner: MetricProducer) {}

  async collect(): Promise<CollectionResult> {
    const result = await this.inner.collect();
    const next = new Map<string, number>();
    const scopeMetrics = result.resourceMetrics.scopeMetrics.map((sm) => ({
      ...sm,
      metrics: sm.metrics.map((m): MetricData => {
        if (m.dataPointType !== DataPointType.SUM) return m;
        return {
          ...m,
          aggregationTemporality: AggregationTemporality.DELTA,
          dataPoints: m.dataPoints.map((p) => {
            const key = `${m.descriptor.name}${JSON.stringify(p.attributes)}`;
            next.set(key, p.value);
            const prev = this.last.get(key) ?? 0;
            // A counter below its last value was reset (state removed): its whole value is new.
            return { ...p, startTime: this.lastTime ?? p.startTime, value: p.value >= prev ? p.value - prev : p.value };
          }),
        };
      }),
    }));
    this.last = next;
    this.lastTime = scopeMetrics[0]?.metrics[0]?.dataPoints[0]?.endTime ?? this.lastTime;
    return { ...result, resourceMetrics: { ...result.resourceMetrics, scopeMetrics } };
  }
}

/** An exporter that tells `log` the result of every export before passing it on. */
function counted(inner: PushMetricExporter, log: ExportLog): PushMetricExporter {
  return {
    export(metrics: ResourceMetrics, done: (result: ExportResult) => void) {
      inner.export(metrics, (result) => {
        log.record(result);
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
  };
}

/** The protocol's exporter; only its own modules are loaded (gRPC's are many). */
async function exporterFor(opts: OtlpOptions): Promise<PushMetricExporter> {
  if (opts.protocol === 'grpc') {
    const [{ OTLPMetricExporter }, { createEmptyMetadata }] = await Promise.all([
      import('@opentelemetry/exporter-metrics-otlp-grpc'), import('@opentelemetry/otlp-grpc-exporter-base'),
    ]);
    const metadata = createEmptyMetadata();
    for (const [k, v] of Object.entries(opts.headers)) metadata.set(k, v);
    return new OTLPMetricExporter({ url: opts.url, metadata });
  }
  const config = { url: opts.url, headers: opts.headers };
  return opts.protocol === 'http/json'
    ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config)
    : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config);
}

async function otlpReader(producer: MetricProducer, opts: OtlpOptions, log: ExportLog): Promise<PeriodicExportingMetricReader> {
  return new PeriodicExportingMetricReader({
    exporter: counted(await exporterFor(opts), log),
    exportIntervalMillis: opts.intervalMs,
    exportTimeoutMillis: Math.min(opts.intervalMs, 30_000),
    metricProducers: [opts.temporality === 'delta' ? new DeltaProducer(producer) : producer],
  });
}
