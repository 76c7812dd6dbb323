// The snapshot as OTel metric data, for the OTLP push's producer (/metrics is written by
// prometheus.ts): the SDK's own instruments would keep exporting a session's series forever after
// it ends (design-anchors §6.3); a producer's series vanish when it stops returning them.

import { ValueType, type HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { Family } from './snapshot.js';

const SCOPE = { name: 'coding-agent-exporter' };

export function hrTime(ms: number): HrTime {
  return [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
}

/**
 * When the points' totals began: `totals`, the state database's (kept across restarts, so a
 * receiver never reads a restart as a reset of totals that went on); `process`, this process's,
 * for the counters of the process alone (the catalog's `perProcess`) and the gauges.
 */
export interface Starts {
  totalsMs: number;
  processMs: number;
}

export function toMetricData(families: Family[], starts: Starts, nowMs: number): MetricData[] {
  const [totalsStart, processStart] = [hrTime(starts.totalsMs), hrTime(starts.processMs)];
  const endTime = hrTime(nowMs);
  return families.map(({ def, points }): MetricData => {
    const descriptor = { name: def.name, description: def.help, unit: def.unit, valueType: ValueType.DOUBLE };
    const startTime = def.kind === 'counter' && !def.perProcess ? totalsStart : processStart;
    const dataPoints = points.map((p) => ({ startTime, endTime, attributes: p.labels, value: p.value }));
    return def.kind === 'counter'
      ? {
          descriptor,
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.SUM,
          isMonotonic: true,
          dataPoints,
        }
      : {
          descriptor,
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.GAUGE,
          dataPoints,
        };
  });
}

export function resourceMetrics(resource: Resource, metrics: MetricData[]): ResourceMetrics {
  return { resource, scopeMetrics: [{ scope: SCOPE, metrics }] };
}
