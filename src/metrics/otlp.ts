// OTLP push of the same snapshot, with the same names, from the same process.

import { OTLPMetricExporter as HttpJsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as HttpProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import {
  AggregationTemporality,
  DataPointType,
  PeriodicExportingMetricReader,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

export interface OtlpOptions {
  /** Base URL of the receiver (`/v1/metrics` is appended unless the URL already ends with it). */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  intervalMs: number;
  temporality: 'cumulative' | 'delta';
}

/**
 * Delta temporality over a cumulative producer: each export carries what counters gained since
 * the previous export (gauges pass through). The SDK does not convert producer data itself.
 */
export class DeltaProducer implements MetricProducer {
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

export function otlpReader(producer: MetricProducer, opts: OtlpOptions): PeriodicExportingMetricReader {
  const url = opts.endpoint.replace(/\/+$/, '').replace(/(\/v1\/metrics)?$/, '/v1/metrics');
  const config = { url, headers: opts.headers };
  const exporter = opts.protocol === 'http/json' ? new HttpJsonExporter(config) : new HttpProtoExporter(config);
  return new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: opts.intervalMs,
    exportTimeoutMillis: Math.min(opts.intervalMs, 30_000),
    metricProducers: [opts.temporality === 'delta' ? new DeltaProducer(producer) : producer],
  });
}
