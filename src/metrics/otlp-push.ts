// The OTLP push itself, loaded only when a push is configured: OpenTelemetry's SDK and exporters
// are most of the modules this process could load, and `once` or a scrape-only exporter needs
// none of them.

import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricProducer,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { createRequire } from 'node:module';
import { ConfigError, type Config } from '../config/load.js';
import type { StateDb } from '../state/db.js';
import { DeltaExporter } from './otlp-delta.js';
import type { ExportLog, OtlpOptions } from './otlp.js';
import { genaiLatest, ViewsProducer, type ViewInputs } from './views.js';

export interface Push {
  shutdown(): Promise<void>;
}

/**
 * Pushes the snapshot (and the configured views of it) every interval until shut down, with the
 * resource attributes given. `state` keeps what a delta push's receiver took.
 */
export async function startPush(
  inputs: () => ViewInputs,
  opts: OtlpOptions,
  log: ExportLog,
  settings: {
    otel: Config['otel'];
    resource: Record<string, string>;
    env: NodeJS.ProcessEnv;
    startMs: number;
    state: StateDb;
  },
): Promise<Push> {
  const views = { ...settings.otel, genaiLatest: genaiLatest(settings.env) };
  const starts = { totalsMs: totalsStart(settings.state, settings.startMs), processMs: settings.startMs };
  const reader = await otlpReader(new ViewsProducer(inputs, views, starts), opts, log, settings.state);
  return new MeterProvider({ resource: resourceFromAttributes(settings.resource), readers: [reader] });
}

const TOTALS_START = 'otlp-start';

/**
 * The start time of the totals: the start of the first process that pushed them, kept in the
 * state database until `--reset-state` starts the totals over. A start time that changed at each
 * restart read as a reset to a receiver that turns totals into gains (the Collector's
 * cumulativetodelta, Prometheus's created timestamps): it counted the whole total again.
 */
function totalsStart(db: StateDb, nowMs: number): number {
  const kept = db.kv().find((k) => k.key === TOTALS_START);
  if (kept) return JSON.parse(kept.value) as number;
  db.commit({
    files: [],
    removedFiles: [],
    sessions: [],
    counters: [],
    seen: [],
    kv: [{ key: TOTALS_START, value: JSON.stringify(nowMs) }],
  });
  return nowMs;
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
    const { OTLPMetricExporter } = await grpcExporter();
    // Its transport's package is its dependency, found from it: installed beside this one, it is not ours.
    const { createEmptyMetadata } = createRequire(import.meta.resolve(GRPC_EXPORTER))(
      GRPC_BASE,
    ) as typeof import('@opentelemetry/otlp-grpc-exporter-base');
    const metadata = createEmptyMetadata();
    for (const [k, v] of Object.entries(opts.headers)) metadata.set(k, v);
    return new OTLPMetricExporter({ url: opts.url, metadata });
  }
  const config = { url: opts.url, headers: opts.headers };
  return opts.protocol === 'http/json'
    ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config)
    : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config);
}

const GRPC_EXPORTER = '@opentelemetry/exporter-metrics-otlp-grpc';
const GRPC_BASE = '@opentelemetry/otlp-grpc-exporter-base';
// The version package.json's peerDependencies name (the pack test holds them equal): the SDK's.
const GRPC_VERSION = '0.223.0';

/**
 * OpenTelemetry's gRPC exporter, which is not installed with this package (an optional peer: 36
 * packages, 9.7 MB, for those who push over gRPC alone); where it is missing, the command that
 * installs it.
 */
async function grpcExporter(): Promise<typeof import('@opentelemetry/exporter-metrics-otlp-grpc')> {
  try {
    // An import of a name held in a variable is untyped: its type is the package's.
    return (await import(GRPC_EXPORTER)) as typeof import('@opentelemetry/exporter-metrics-otlp-grpc');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    throw new ConfigError(
      `otlp.protocol grpc: OpenTelemetry's gRPC exporter is installed apart, beside this package: ` +
        `npm install -g ${GRPC_EXPORTER}@${GRPC_VERSION} (or push over http/protobuf, which needs nothing more)`,
    );
  }
}

/** The producer's totals are cumulative; a delta push turns them into deltas as it sends them. */
async function otlpReader(
  producer: MetricProducer,
  opts: OtlpOptions,
  log: ExportLog,
  state: StateDb,
): Promise<PeriodicExportingMetricReader> {
  const exporter = await exporterFor(opts);
  return new PeriodicExportingMetricReader({
    exporter: counted(opts.temporality === 'delta' ? new DeltaExporter(exporter, state) : exporter, log),
    exportIntervalMillis: opts.intervalMs,
    exportTimeoutMillis: Math.min(opts.intervalMs, 30_000),
    metricProducers: [producer],
  });
}
