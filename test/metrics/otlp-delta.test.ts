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
import { tempDir, until } from '../helpers/run.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Pushes `tokens` as the total of one series; resolves with the result. */
function push(exporter: DeltaExporter, tokens: number): Promise<ExportResult> {
  const families = [
    {
      def: catalog.tokens,
      points: [{ labels: { harness: 'codex', project: 'p', model: 'm', token_type: 'input' }, value: tokens }],
    },
  ];
  const metrics = resourceMetrics(
    resourceFromAttributes({}),
    toMetricData(families, { totalsMs: 0, processMs: 0 }, Date.now()),
  );
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

  it('never send again the gains of a push the receiver took but answered after the timeout', async () => {
    const r = await httpReceiver();
    receivers.push(r);
    const db = new StateDb(tempDir());
    // The SDK's timeout, 10 s by default (OTEL_EXPORTER_OTLP_TIMEOUT), made short.
    const exporter = new DeltaExporter(new OTLPMetricExporter({ url: `${r.url}/v1/metrics`, timeoutMillis: 200 }), db);
    r.holdNext = 1;
    const late = await push(exporter, 100);
    expect(late.code).toBe(1);
    r.release(); // it takes the push, answering a connection closed since
    await until(async () => (r.pushes.length === 1 ? true : undefined), 5_000, 'the late push taken');
    expect((await push(exporter, 130)).code).toBe(0);
    expect(r.pushes.map((p) => p.metrics[0]!.points[0]!.value)).toEqual([100, 30]);
    expect(late.error?.message).toMatch(/Request timed out: counted as taken/); // logged as such
    await exporter.shutdown();
    db.close();
  });
});
