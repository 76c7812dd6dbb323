// Deltas from what the receiver took, kept in the state database across restarts: the exporter,
// the OTLP/HTTP exporter and a receiver, all real, in this process.

import type { ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { afterEach, describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import { DeltaExporter } from '../../src/metrics/otlp-delta.js';
import { resourceMetrics, toMetricData } from '../../src/metrics/producer.js';
import { StateDb } from '../../src/state/db.js';
import { httpReceiver, type Receiver } from '../helpers/otlp-receiver.js';
import { tempDir } from '../helpers/run.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Pushes `tokens` as the total of one series; resolves with the result. */
function push(exporter: DeltaExporter, tokens: number): Promise<ExportResult> {
  const families = [{ def: catalog.tokens, points: [{ labels: { harness: 'codex', project: 'p', model: 'm', token_type: 'input' }, value: tokens }] }];
  const metrics = resourceMetrics(resourceFromAttributes({}), toMetricData(families, 0, Date.now()));
  return new Promise((resolve) => exporter.export(metrics, resolve));
}

describe('OTLP deltas', () => {
  it('send nothing for totals read again below what was taken (pushed before a crash, not yet committed)', async () => {
    const r = await httpReceiver();
    receivers.push(r);
    const dir = tempDir();
    const run = async (totals: number[]) => {
      const db = new StateDb(dir);
      const exporter = new DeltaExporter(new OTLPMetricExporter({ url: `${r.url}/v1/metrics` }), db);
      for (const t of totals) expect((await push(exporter, t)).code).toBe(0);
      await exporter.shutdown();
      db.close();
    };
    await run([100]);
    await run([90, 130]);
    expect(r.pushes.map((p) => p.metrics[0]!.points[0]!.value)).toEqual([100, 0, 30]);
  });
});
