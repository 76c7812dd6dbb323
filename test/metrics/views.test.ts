// The opt-in OTLP views against the lists of names, units and attributes of the texts they follow:
//   - semantic-conventions v1.41.0 docs/gen-ai/gen-ai-metrics.md (gen_ai.client.token.usage);
//   - semantic-conventions-genai docs/gen-ai/gen-ai-token-metrics.md (commit 066d4a7f, the
//     gen_ai_latest_experimental instruments);
//   - Claude Code's monitoring documentation (claude_code.* instruments and attribute values), and
//     the Prometheus names the community's Claude Code dashboards query.
// Values are checked against our own counters for the same fixture home.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataPointType, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { catalog, exposedName } from '../../src/catalog.js';
import { genaiLatest, viewMetrics, type ViewInputs, type Views } from '../../src/metrics/views.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const SPEC_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** name → instrument, unit, required attributes (ours add `harness`), per the texts above. */
const GENAI_V1_41 = {
  'gen_ai.client.token.usage': {
    type: 'histogram',
    unit: '{token}',
    attributes: ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.token.type', 'gen_ai.request.model'],
  },
};
const USAGE = ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.token.modality', 'gen_ai.request.model'];
const OPERATION = ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.request.model'];
const GENAI_LATEST = {
  'gen_ai.client.inference.usage.input_tokens': { type: 'counter', unit: '{token}', attributes: USAGE },
  'gen_ai.client.inference.usage.output_tokens': { type: 'counter', unit: '{token}', attributes: USAGE },
  'gen_ai.client.inference.usage.cache_read.input_tokens': { type: 'counter', unit: '{token}', attributes: USAGE },
  'gen_ai.client.inference.usage.cache_write.input_tokens': { type: 'counter', unit: '{token}', attributes: USAGE },
  'gen_ai.client.inference.usage.reasoning.output_tokens': { type: 'counter', unit: '{token}', attributes: USAGE },
  'gen_ai.client.inference.operation.input_tokens': { type: 'histogram', unit: '{token}', attributes: OPERATION },
  'gen_ai.client.inference.operation.output_tokens': { type: 'histogram', unit: '{token}', attributes: OPERATION },
};
const CLAUDE_CODE = {
  'claude_code.token.usage': { type: 'counter', unit: 'tokens', attributes: ['type', 'model'] },
  'claude_code.cost.usage': { type: 'counter', unit: 'USD', attributes: ['model'] },
  'claude_code.session.count': { type: 'counter', unit: 'count', attributes: [] },
  'claude_code.lines_of_code.count': { type: 'counter', unit: 'count', attributes: ['type'] },
};
/** What the community's Claude Code dashboards query: the OTel Collector's Prometheus names. */
const CLAUDE_CODE_PROMETHEUS = [
  'claude_code_token_usage_tokens_total',
  'claude_code_cost_usage_USD_total',
  'claude_code_session_count_total',
  'claude_code_lines_of_code_count_total',
];

/**
 * The Collector's translation to Prometheus names (prometheus and prometheusremotewrite exporters,
 * add_metric_suffixes: true): dots to underscores, the unit's word appended unless it is an
 * {annotation} or already one of the name's words (By → bytes, s → seconds), `_total` on counters.
 */
function collectorName(name: string, unit: string, counter: boolean): string {
  const words = name.split(/[._]/);
  const unitWord =
    /^\{.*\}$/.test(unit) || unit === ''
      ? ''
      : (({ By: 'bytes', s: 'seconds', 1: 'ratio' } as Record<string, string>)[unit] ?? unit);
  const base = words.join('_') + (unitWord && !words.includes(unitWord) ? `_${unitWord}` : '');
  return counter ? `${base}_total` : base;
}

let agent: Exporter;
let inputs: ViewInputs;
// Sessions of every harness; none of the fixtures changed lines, so two line counters are added.
const home = join(FIXTURES, 'home');

beforeAll(async () => {
  agent = new Exporter(loadConfig(['--state-dir', tempDir()], { HOME: home }), createLogger('error'), {
    env: { HOME: home },
    home,
  });
  await agent.scanAll();
  const lines = [
    {
      def: catalog.linesAdded,
      points: [
        { labels: { harness: 'codex', project: 'a' }, value: 12 },
        { labels: { harness: 'codex', project: 'b' }, value: 3 },
      ],
    },
    { def: catalog.linesRemoved, points: [{ labels: { harness: 'claude-code', project: 'a' }, value: 5 }] },
  ];
  inputs = {
    families: [...agent.families(), ...lines],
    requestTokens: [...agent.store.requestTokens.values()],
    providerOf: (m) => agent.store.prices.provider(m),
  };
});
afterAll(() => agent.stop());

const view = (v: Partial<Views>) =>
  viewMetrics({ semconv: '', genaiLatest: false, compat: '', ...v }, inputs, 0, Date.now());
const byName = (ms: MetricData[], name: string) => ms.find((m) => m.descriptor.name === name)!;
const total = (ms: MetricData[], name: string) =>
  byName(ms, name).dataPoints.reduce((a, p) => a + (p.value as number), 0);
const ours = (name: string, match: Record<string, string[]> = {}) =>
  inputs.families
    .find((f) => f.def.name === name)!
    .points.filter((p) => Object.entries(match).every(([k, vs]) => vs.includes(p.labels[k]!)))
    .reduce((a, p) => a + p.value, 0);

function conforms(ms: MetricData[], expected: Record<string, { type: string; unit: string; attributes: string[] }>) {
  expect(ms.map((m) => m.descriptor.name).sort()).toEqual(Object.keys(expected).sort());
  for (const m of ms) {
    const e = expected[m.descriptor.name]!;
    expect(m.descriptor.unit, m.descriptor.name).toBe(e.unit);
    expect(m.dataPointType, m.descriptor.name).toBe(
      e.type === 'histogram' ? DataPointType.HISTOGRAM : DataPointType.SUM,
    );
    for (const p of m.dataPoints) {
      expect(Object.keys(p.attributes).sort(), m.descriptor.name).toEqual([...e.attributes, 'harness'].sort());
      if (e.type === 'histogram') expect((p.value as Histogram).buckets.boundaries).toEqual(SPEC_BUCKETS);
    }
  }
}

describe('GenAI semantic-conventions view', () => {
  it('is off unless asked for', () => {
    expect(view({})).toEqual([]);
    expect(genaiLatest({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental' })).toBe(true);
    expect(genaiLatest({ OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai' })).toBe(false);
  });

  it('sends gen_ai.client.token.usage as v1.41.0 names it, input counting the cache, one observation per model request', () => {
    const ms = view({ semconv: 'genai' });
    conforms(ms, GENAI_V1_41);
    const points = byName(ms, 'gen_ai.client.token.usage').dataPoints;
    const sumOf = (type: string) =>
      points
        .filter((p) => p.attributes['gen_ai.token.type'] === type)
        .reduce((a, p) => a + (p.value as Histogram).sum!, 0);
    expect(new Set(points.map((p) => p.attributes['gen_ai.token.type']))).toEqual(new Set(['input', 'output']));
    expect(sumOf('input')).toBe(ours('coding_agent_tokens', { token_type: ['input', 'cache_read', 'cache_write'] }));
    expect(sumOf('output')).toBe(ours('coding_agent_tokens', { token_type: ['output'] }));
    for (const p of points) {
      const h = p.value as Histogram;
      expect(h.count).toBe(h.buckets.counts.reduce((a, n) => a + n, 0));
      expect(h.buckets.counts).toHaveLength(SPEC_BUCKETS.length + 1);
      expect(p.attributes['gen_ai.operation.name']).toBe('chat');
    }
    const providers = Object.fromEntries(
      points.map((p) => [p.attributes['gen_ai.request.model'], p.attributes['gen_ai.provider.name']]),
    );
    expect(providers['claude-sonnet-4-5']).toBe('anthropic');
    expect(providers['gemini-2.5-flash']).toBe('gcp.gen_ai');
  });

  it('sends only the latest experimental instruments with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental', () => {
    const ms = view({ semconv: 'genai', genaiLatest: true });
    conforms(ms, GENAI_LATEST);
    expect(total(ms, 'gen_ai.client.inference.usage.input_tokens')).toBe(
      ours('coding_agent_tokens', { token_type: ['input', 'cache_read', 'cache_write'] }),
    );
    expect(total(ms, 'gen_ai.client.inference.usage.output_tokens')).toBe(
      ours('coding_agent_tokens', { token_type: ['output'] }),
    );
    expect(total(ms, 'gen_ai.client.inference.usage.cache_read.input_tokens')).toBe(
      ours('coding_agent_tokens', { token_type: ['cache_read'] }),
    );
    expect(total(ms, 'gen_ai.client.inference.usage.cache_write.input_tokens')).toBe(
      ours('coding_agent_tokens', { token_type: ['cache_write'] }),
    );
    expect(total(ms, 'gen_ai.client.inference.usage.reasoning.output_tokens')).toBe(
      ours('coding_agent_reasoning_tokens'),
    );
    for (const p of byName(ms, 'gen_ai.client.inference.usage.input_tokens').dataPoints)
      expect(p.attributes['gen_ai.token.modality']).toBe('unknown');
  });
});

describe('Claude Code compatible view', () => {
  it("sends Claude Code's instruments and attribute values, for every harness", () => {
    const ms = view({ compat: 'claude-code' });
    conforms(ms, CLAUDE_CODE);
    const tokens = byName(ms, 'claude_code.token.usage').dataPoints;
    expect(new Set(tokens.map((p) => p.attributes.type))).toEqual(
      new Set(['input', 'output', 'cacheRead', 'cacheCreation']),
    );
    const harnesses = new Set(
      inputs.families.find((f) => f.def === catalog.tokens)!.points.map((p) => p.labels.harness),
    );
    expect(harnesses.size).toBeGreaterThanOrEqual(5);
    expect(new Set(tokens.map((p) => p.attributes.harness))).toEqual(harnesses);
    expect(total(ms, 'claude_code.token.usage')).toBe(ours('coding_agent_tokens'));
    expect(total(ms, 'claude_code.cost.usage')).toBeCloseTo(ours('coding_agent_cost_usd'), 12);
    expect(total(ms, 'claude_code.session.count')).toBe(ours('coding_agent_sessions_started'));
    const lines = byName(ms, 'claude_code.lines_of_code.count').dataPoints;
    const linesOf = (type: string) =>
      lines.filter((p) => p.attributes.type === type).reduce((a, p) => a + (p.value as number), 0);
    expect(linesOf('added')).toBe(15); // summed over projects, as Claude Code has none
    expect(linesOf('removed')).toBe(5);
  });

  it('arrives in Prometheus through the Collector under the names Claude Code dashboards query', () => {
    // The translation rule, checked on our own catalog first: it gives the names on /metrics.
    for (const d of Object.values(catalog))
      if (d.kind === 'counter') expect(collectorName(d.name, d.unit, true)).toBe(exposedName(d));
    const ms = view({ compat: 'claude-code' });
    expect(ms.map((m) => collectorName(m.descriptor.name, m.descriptor.unit, true)).sort()).toEqual(
      [...CLAUDE_CODE_PROMETHEUS].sort(),
    );
  });
});
