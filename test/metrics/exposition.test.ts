// The full exposition for a fixture home: a golden file (UPDATE_GOLDEN=1 rewrites it) that shows
// every naming or label change in review, checked by `promtool check metrics`.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { catalog } from '../../src/catalog.js';
import { SKIP_REASONS, TURN_OUTCOMES } from '../../src/session/vocabulary.js';
import { resourceMetrics, toMetricData } from '../../src/metrics/producer.js';
import { exposition } from '../../src/metrics/prometheus.js';
import type { Family } from '../../src/metrics/snapshot.js';
import { FIXTURES, samples, tempDir } from '../helpers/run.js';

const home = join(FIXTURES, 'home');
// The captures were written at 02:16 on 2026-11-30: four minutes later their turns are just done.
const NOW = Date.parse('2026-11-30T02:20:00Z');
const GOLDEN = join(FIXTURES, 'metrics', 'home.prom');

async function agentFor(dir = home) {
  const config = loadConfig(['--state-dir', tempDir()], {
    HOME: dir,
    CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
  });
  const agent = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
  await agent.scanAll();
  return agent;
}

/** Values that change from run to run (timings, the Node version) masked. */
function stable(text: string): string {
  return text
    .replace(
      /^(coding_agent_exporter_collector_(duration_seconds|last_success_timestamp_seconds)\{[^}]*\}) .*$/gm,
      '$1 X',
    )
    .replace(/node_version="[^"]*"/g, 'node_version="X"');
}

describe('exposition', () => {
  it('matches the golden file', async () => {
    const agent = await agentFor();
    const text = stable(exposition(agent.families(NOW)));
    await agent.stop();
    if (process.env.UPDATE_GOLDEN) writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('passes promtool check metrics', async () => {
    const agent = await agentFor();
    const text = exposition(agent.families(NOW));
    await agent.stop();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });

  it('has no duplicate family or series', async () => {
    const agent = await agentFor();
    const text = exposition(agent.families(NOW));
    await agent.stop();
    const types = text
      .split('\n')
      .filter((l) => l.startsWith('# TYPE '))
      .map((l) => l.split(' ')[2]);
    expect(new Set(types).size).toBe(types.length);
    const series = samples(text).map((s) => `${s.name}${JSON.stringify(s.labels)}`);
    expect(new Set(series).size).toBe(series.length);
  });

  it("drops a session's series when it goes idle, keeping its counters and a 0 for its status; an error stays until a new turn", async () => {
    const agent = await agentFor();
    const live = samples(exposition(agent.families(NOW)));
    const later = NOW + 3 * 3600_000;
    const idle = samples(exposition(agent.families(later)));
    await agent.stop();
    expect(live.filter((s) => s.name === 'coding_agent_session_status').length).toBe(16);
    expect(idle.filter((s) => s.name === 'coding_agent_session_status').map((s) => s.labels.status)).toEqual([
      'error',
      'error',
      'error',
      'error',
    ]);
    const count = (ss: typeof live, status: string) =>
      ss
        .filter((s) => s.name === 'coding_agent_sessions' && s.labels.status === status)
        .reduce((a, s) => a + s.value, 0);
    expect(count(live, 'done')).toBe(12);
    expect(count(live, 'error')).toBe(4);
    expect(count(idle, 'done')).toBe(0);
    expect(count(idle, 'error')).toBe(4);
    expect(count(idle, 'idle')).toBe(12);
    const tokens = (ss: typeof live) => ss.filter((s) => s.name === 'coding_agent_tokens_total').map((s) => s.value);
    expect(tokens(idle)).toEqual(tokens(live));
  });

  it('shows at 0 from the start the series dashboards plot where their labels are known, and no token type a harness never records', async () => {
    const agent = await agentFor();
    const all = samples(exposition(agent.families(NOW)));
    await agent.stop();
    const of = (name: string) => all.filter((s) => s.name === name);
    const has = (name: string, labels: Record<string, string>) =>
      of(name).some((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    for (const { labels } of of('coding_agent_tool_calls_total'))
      expect(has('coding_agent_tool_errors_total', labels), JSON.stringify(labels)).toBe(true);
    for (const { labels: l } of of('coding_agent_tokens_total'))
      expect(has('coding_agent_exporter_unpriced_tokens_total', { harness: l.harness!, model: l.model! })).toBe(true);
    for (const { labels: l } of of('coding_agent_turns_total')) {
      for (const outcome of TURN_OUTCOMES)
        expect(has('coding_agent_turns_total', { harness: l.harness!, project: l.project!, outcome })).toBe(true);
    }
    for (const { labels: l } of of('coding_agent_exporter_collector_success')) {
      for (const reason of SKIP_REASONS)
        expect(has('coding_agent_exporter_skipped_records_total', { collector: l.collector!, reason })).toBe(true);
    }
    expect(of('coding_agent_tool_errors_total').filter((s) => s.value === 0).length).toBeGreaterThan(0);
    // Gemini CLI records no cache writes: no series says it wrote none.
    expect(has('coding_agent_tokens_total', { harness: 'gemini-cli', token_type: 'cache_read' })).toBe(true);
    expect(has('coding_agent_tokens_total', { harness: 'gemini-cli', token_type: 'cache_write' })).toBe(false);
  });
});

describe('the serializer', () => {
  // Help text and label values with every character the format escapes, and the special values.
  const families: Family[] = [
    {
      def: catalog.tokens,
      points: [
        { labels: { harness: 'claude-code', project: 'a\\b "c"\nd', model: 'm', token_type: 'input' }, value: 12.5 },
        { labels: { harness: 'claude-code', project: 'p', model: 'm', token_type: 'output' }, value: 1e21 },
      ],
    },
    {
      def: { ...catalog.sessionStatus, help: 'Back\\slash and\nnewline in help.' },
      points: [{ labels: { harness: 'h', project: 'p', session_id: 's', status: 'working', reason: '' }, value: 1 }],
    },
    {
      def: catalog.sessionContextTokens,
      points: [
        { labels: { harness: 'h', project: 'p', session_id: 's', model: '+' }, value: Infinity },
        { labels: { harness: 'h', project: 'p', session_id: 't', model: '-' }, value: -Infinity },
      ],
    },
  ];

  it("writes what OpenTelemetry's Prometheus exporter wrote, byte for byte", () => {
    const serializer = new PrometheusSerializer(undefined, false, undefined, true, true);
    const otel = serializer.serialize(
      resourceMetrics(resourceFromAttributes({}), toMetricData(families, { totalsMs: 0, processMs: 0 }, 1)),
    );
    expect(exposition(families)).toBe(otel);
    expect(exposition([])).toBe(serializer.serialize(resourceMetrics(resourceFromAttributes({}), [])));
  });

  it('escapes backslash, quote and newline in label values', () => {
    const text = exposition(families);
    expect(text).toContain('project="a\\\\b \\"c\\"\\nd"');
    expect(text).toContain('# HELP coding_agent_session_status Back\\\\slash and\\nnewline in help.\n');
    expect(text).toContain(' +Inf\n');
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text.replace(/^.*Inf\n/gm, ''), encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
  });
});
