// Runs promtool on the deploy files: `check rules`, `test rules`, `check config`, and a syntax
// check of every dashboard query. Fails with promtool's output. Needs promtool on the PATH
// (Debian/Ubuntu package "prometheus", or PROMTOOL=/path); CODING_AGENT_EXPORTER_SKIP_PROMTOOL=1
// skips instead of failing when it is missing.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DASHBOARDS, DEPLOY, PROM, promtool, skipPromtool, yaml, type Json } from './lib.js';

const tmp = mkdtempSync(join(tmpdir(), 'cae-deploy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function ok(args: string[], cwd?: string): Promise<string> {
  const r = await promtool(args, cwd);
  if (r.status !== 0) throw new Error(`promtool ${args.join(' ')} exited ${r.status}:\n${r.output}`);
  return r.output;
}

describe.skipIf(skipPromtool)('promtool', () => {
  it('check rules: rules.yml and alerts.yml are valid', async () => {
    const out = await ok(['check', 'rules', 'rules.yml', 'alerts.yml'], PROM);
    expect(out).toMatch(/rules\.yml\s+SUCCESS/);
    expect(out).toMatch(/alerts\.yml\s+SUCCESS/);
  });

  it('test rules: every unit test in tests/*.yml passes', async () => {
    const files = readdirSync(join(PROM, 'tests'))
      .filter((f) => f.endsWith('.yml'))
      .map((f) => join('tests', f));
    expect(files.length).toBeGreaterThanOrEqual(3);
    const out = await ok(['test', 'rules', ...files], PROM);
    expect(out).not.toMatch(/FAILED/);
  });

  it('test rules really fails when a threshold changes (the tests are not vacuous)', async () => {
    const dir = join(tmp, 'mutated');
    cpSync(PROM, dir, { recursive: true });
    const rules = readFileSync(join(dir, 'rules.yml'), 'utf8');
    const mutated = rules.replace(
      /(record: coding_agent:session_stuck_seconds:threshold\n\s+expr: )vector\(900\)/,
      '$1vector(3600)',
    );
    expect(mutated).not.toBe(rules);
    writeFileSync(join(dir, 'rules.yml'), mutated);
    const r = await promtool(['test', 'rules', join('tests', 'alerts_test.yml')], dir);
    expect(r.status, r.output).not.toBe(0);
    expect(r.output).toContain('CodingAgentSessionStuck');
  });

  it('check config: the example prometheus.yml (with its rule files)', async () => {
    const out = await ok(['check', 'config', 'prometheus.yml'], PROM);
    expect(out).toContain('2 rule files found');
  });

  it('check config: the Prometheus of compose.yml, with its files laid out as the volumes mount them', async () => {
    const compose = yaml(join(DEPLOY, 'docker', 'compose.yml'));
    const root = join(tmp, 'compose-prometheus');
    let config = '';
    for (const v of compose.services.prometheus.volumes as string[]) {
      const [host, container] = v.split(':') as [string, string];
      if (!host.startsWith('.')) continue; // named volume
      const dest = join(root, container);
      mkdirSync(dirname(dest), { recursive: true });
      cpSync(resolve(DEPLOY, 'docker', host), dest, { recursive: true });
    }
    for (const a of compose.services.prometheus.command as string[]) {
      if (a.startsWith('--config.file=')) config = join(root, a.slice('--config.file='.length));
    }
    expect(config).not.toBe('');
    const out = await ok(['check', 'config', config]);
    expect(out).toContain('2 rule files found');
  });

  it('every dashboard query is valid PromQL (variables substituted)', async () => {
    const groups: { name: string; rules: { record: string; expr: string }[] }[] = [];
    const where: string[] = [];
    for (const file of readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'))) {
      const d = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8'));
      const rules: { record: string; expr: string }[] = [];
      const panels = (d.panels as Json[]).flatMap((p) => (p.type === 'row' ? (p.panels ?? []) : [p]));
      for (const p of panels) {
        for (const t of p.targets ?? []) {
          const expr = String(t.expr)
            .replaceAll('$__rate_interval', '5m')
            .replaceAll('$__range', '1d')
            .replace(/\$\{?(job|instance|user|team|harness|project)\}?/g, '.*');
          expect(expr, `${file} "${p.title}"`).not.toContain('$');
          where.push(`dashboard:query_${rules.length}:check = ${file} "${p.title}" ${t.refId}`);
          rules.push({ record: `dashboard:query_${rules.length}:check`, expr });
        }
      }
      groups.push({ name: file, rules });
    }
    const path = join(tmp, 'dashboard-queries.yml');
    writeFileSync(path, stringify({ groups }));
    const r = await promtool(['check', 'rules', path]);
    if (r.status !== 0) {
      // Point at the failing query, not only at the generated file.
      throw new Error(`a dashboard query is not valid PromQL:\n${r.output}\n${where.join('\n')}`);
    }
  });

  it('the Sessions table marks stuck, waiting and failed sessions (its Attention query, evaluated)', async () => {
    const d = JSON.parse(readFileSync(join(DASHBOARDS, 'sessions.json'), 'utf8'));
    const table = (d.panels as Json[]).find((p) => p.type === 'table' && p.title === 'Live sessions');
    const attention = table.targets.find((t: Json) => t.refId === 'I').expr as string;
    const expr = attention.replace(/\$\{?(job|instance|user|team|harness|project)\}?/g, '.*');
    const l = (id: string, extra = ''): string =>
      `{job="coding-agent-exporter",instance="laptop",harness="claude-code",project="api",session_id="${id}"${extra}}`;
    const dir = join(tmp, 'attention');
    mkdirSync(dir, { recursive: true });
    cpSync(join(PROM, 'rules.yml'), join(dir, 'rules.yml'));
    writeFileSync(
      join(dir, 'test.yml'),
      stringify({
        rule_files: ['rules.yml'],
        evaluation_interval: '1m',
        tests: [
          {
            name: 'Attention column',
            interval: '1m',
            input_series: [
              // s1: working, silent since the start -> stuck; s2: working and active -> nothing;
              // s3: asking, silent -> waiting for you; s4: error -> turn failed; s5: done -> nothing.
              {
                series: `coding_agent_session_status${l('s1', ',status="working",reason="turn-open"')}`,
                values: '1x30',
              },
              { series: `coding_agent_session_last_activity_timestamp_seconds${l('s1')}`, values: '0x30' },
              {
                series: `coding_agent_session_status${l('s2', ',status="working",reason="process-busy"')}`,
                values: '1x30',
              },
              { series: `coding_agent_session_last_activity_timestamp_seconds${l('s2')}`, values: '0+60x30' },
              { series: `coding_agent_session_status${l('s3', ',status="asking",reason="question"')}`, values: '1x30' },
              { series: `coding_agent_session_last_activity_timestamp_seconds${l('s3')}`, values: '0x30' },
              {
                series: `coding_agent_session_status${l('s4', ',status="error",reason="turn-failed"')}`,
                values: '1x30',
              },
              { series: `coding_agent_session_last_activity_timestamp_seconds${l('s4')}`, values: '0x30' },
              { series: `coding_agent_session_status${l('s5', ',status="done",reason="recent"')}`, values: '1x30' },
              { series: `coding_agent_session_last_activity_timestamp_seconds${l('s5')}`, values: '0x30' },
            ],
            promql_expr_test: [
              {
                expr,
                eval_time: '20m',
                exp_samples: [
                  { labels: l('s1'), value: 2 },
                  { labels: l('s3'), value: 1 },
                  { labels: l('s4'), value: 3 },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(await ok(['test', 'rules', 'test.yml'], dir)).toMatch(/SUCCESS/);
  });
});
