// The mixin against a real Prometheus (Debian's binary, loopback only, temporary data folder)
// scraping the real exporter's `demo`: every dashboard query and every rule expression parses and
// runs, the core panels return data, and the stuck and waiting alerts go pending or firing.

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, Processes } from '../helpers/processes.js';
import { listening, until } from '../helpers/run.js';
import { alertRules, DASHBOARDS, PROM, read, recordingRules } from './lib.js';

const processes = new Processes();

interface ApiResult {
  status: string;
  error?: string;
  data: { resultType: string; result: unknown[] };
}

let api: (path: string) => Promise<ApiResult>;
let exporterTarget: string;

beforeAll(async () => {
  // No agent processes: the demo's would be seen by (and counted in) a demo another test runs.
  const exporter = listening(['demo', '--listen-address', '127.0.0.1:0'], {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
  });
  processes.add(exporter.child);
  exporterTarget = (await exporter.url).replace('http://', '');
  const dir = mkdtempSync(join(tmpdir(), 'cae-prom-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      `  - ${join(PROM, 'rules.yml')}`,
      `  - ${join(PROM, 'alerts.yml')}`,
      'scrape_configs:',
      '  - job_name: coding-agent-exporter',
      '    static_configs:',
      `      - targets: ['${exporterTarget}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  await processes.start(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-lifecycle',
    ],
    /Server is ready to receive web requests/,
  );
  api = async (path) => (await fetch(`http://127.0.0.1:${port}/api/v1/${path}`)).json() as Promise<ApiResult>;
  // Enough samples for rates over the substituted rate interval.
  await until(
    async () => {
      const r = await api(`query?query=${encodeURIComponent('count_over_time(coding_agent_exporter_build_info[1m])')}`);
      const n = Number((r.data.result[0] as { value: [number, string] } | undefined)?.value[1] ?? 0);
      return n >= 5 ? true : undefined;
    },
    30_000,
    'five scrapes',
    250,
  );
}, 60_000);

afterAll(() => processes.stopAll());

/** Grafana's template variables, as the dashboards would have them for this exporter. */
function substitute(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '20s')
    .replaceAll('$__interval', '5s')
    .replaceAll('$__range', '1h')
    .replaceAll('$job', 'coding-agent-exporter')
    .replaceAll('$instance', exporterTarget.replaceAll('.', '\\\\.'))
    .replace(/\$(harness|project|user|team)\b/g, '.*');
}

interface Panel {
  title: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

const queries = readdirSync(DASHBOARDS).flatMap((file) => {
  const dash = JSON.parse(read(join(DASHBOARDS, file))) as { panels: Panel[] };
  const flat = (ps: Panel[]): Panel[] => ps.flatMap((p) => [p, ...flat(p.panels ?? [])]);
  return flat(dash.panels).flatMap((p) =>
    (p.targets ?? []).filter((t) => t.expr).map((t) => ({ file, title: p.title, expr: t.expr! })),
  );
});

// Panels the demo's sessions must fill.
const CORE = [
  'Spend rate by harness',
  'Tokens by type',
  'Sessions by status',
  'Sessions needing you',
  'Prompts and turns',
  'Tool calls by kind',
  'Usage-limit windows',
  'Live sessions',
  'Context fill per session',
  'Cost per session',
  'Collector status',
  'Files tracked',
  'Build info',
  'Stuck sessions',
  'Waiting for you too long',
  'Plan progress',
  // The Team dashboard on one exporter without user or team labels: "All" still matches.
  'Spend by person, today',
  'Spend by team, today',
  'Sessions needing someone',
  'Budget burn, today',
];

async function query(expr: string): Promise<ApiResult> {
  return api(`query?query=${encodeURIComponent(expr)}`);
}

describe('dashboards and rules on a real Prometheus', () => {
  it('has the core panels in the dashboards', () => {
    for (const title of CORE) expect(queries.map((q) => q.title)).toContain(title);
  });

  it('runs every dashboard query', async () => {
    const failures: string[] = [];
    for (const q of queries) {
      const r = await query(substitute(q.expr));
      if (r.status !== 'success') failures.push(`${q.file} "${q.title}": ${r.error}`);
    }
    expect(failures).toEqual([]);
  });

  it('gets data for every core panel', async () => {
    const empty: string[] = [];
    for (const q of queries.filter((x) => CORE.includes(x.title))) {
      const r = await query(substitute(q.expr));
      if (r.data.result.length === 0) empty.push(`${q.file} "${q.title}": ${q.expr}`);
    }
    expect(empty).toEqual([]);
  });

  it('runs every recording and alerting rule expression', async () => {
    const failures: string[] = [];
    for (const rule of [...recordingRules(), ...alertRules()]) {
      const r = await query(rule.expr);
      if (r.status !== 'success') failures.push(`${'record' in rule ? rule.record : rule.alert}: ${r.error}`);
    }
    expect(failures).toEqual([]);
  });

  it('loads the rules without errors', async () => {
    const r = (await api('rules')) as unknown as {
      data: { groups: { rules: { health: string; name: string; lastError?: string }[] }[] };
    };
    const unhealthy = r.data.groups.flatMap((g) => g.rules).filter((x) => x.health === 'err');
    expect(unhealthy).toEqual([]);
  });

  it("raises the stuck and waiting alerts on the demo's stalled and asking sessions", async () => {
    const states = await until(
      async () => {
        const r = (await api('alerts')) as unknown as {
          data: { alerts: { labels: { alertname: string }; state: string }[] };
        };
        const s = new Map(r.data.alerts.map((a) => [a.labels.alertname, a.state]));
        return s.has('CodingAgentSessionStuck') && s.has('CodingAgentSessionWaitingForUser') ? s : undefined;
      },
      20_000,
      'alerts',
      250,
    );
    expect(['pending', 'firing']).toContain(states.get('CodingAgentSessionStuck'));
    expect(['pending', 'firing']).toContain(states.get('CodingAgentSessionWaitingForUser'));
    expect(['pending', 'firing']).toContain(states.get('CodingAgentTurnFailed'));
  });
});
