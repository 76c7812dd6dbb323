// Prometheus text exposition of the snapshot: served on /metrics and printed by `once`.

import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { MetricProducer } from '@opentelemetry/sdk-metrics';
import { resourceMetrics, toMetricData } from './producer.js';
import type { Family } from './snapshot.js';

// No scope labels (they would change every series with each OTel upgrade) and no target_info
// (Prometheus's own target labels identify the machine).
const WITHOUT_TARGET_INFO = true;
const WITHOUT_SCOPE_INFO = true;

export function prometheusExporter(producer: MetricProducer): PrometheusExporter {
  return new PrometheusExporter({
    preventServerStart: true,
    withoutScopeInfo: WITHOUT_SCOPE_INFO,
    withoutTargetInfo: WITHOUT_TARGET_INFO,
    metricProducers: [producer],
  });
}

/** The exposition the /metrics endpoint would serve for these families. */
export function exposition(families: Family[], startMs: number, nowMs = Date.now()): string {
  const serializer = new PrometheusSerializer(undefined, false, undefined, WITHOUT_TARGET_INFO, WITHOUT_SCOPE_INFO);
  return serializer.serialize(resourceMetrics(resourceFromAttributes({}), toMetricData(families, startMs, nowMs)));
}
