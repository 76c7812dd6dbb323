// The team path end to end, with Debian's binaries on loopback: three people, each with an
// exporter on their own fixture home and a Prometheus in agent mode (deploy/team/
// prometheus-agent.yml, their identity as target labels) remote-writing to one VictoriaMetrics;
// vmalert runs our recording and alerting rules against it. Every query of the Team dashboard
// returns the sum over the three people, and the daily-budget alert fires for the one over it.
//
// Two things are changed for a test that takes seconds, not days: intervals of 1 s, and the
// daily budget and the alert's `for:` (copies of the rule files, the expressions untouched).
// The spend panels use increase(): VictoriaMetrics counts a counter that appears with a small
// first value as grown from 0 (Prometheus would need a sample before it), so the whole fixture
// spend shows within the window.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort, Processes } from '../helpers/processes.js';
import { envFor, FIXTURES, listening, sum, tempDir, until } from '../helpers/run.js';
import { DASHBOARDS, DEPLOY, PROM, read } from './lib.js';

const PEOPLE = [
  { user: 'alice', team: 'red', instance: 'alice-laptop', home: join(FIXTURES, 'home') },
  { user: 'bob', team: 'red', instance: 'bob-laptop', home: join(FIXTURES, 'captures/claude-code/tool') },
  { user: 'carol', team: 'blue', instance: 'carol-desktop', home: join(FIXTURES, 'captures/gemini-cli/tool') },
];
/** Between alice's spend (0.036 USD) and bob's (0.010 USD): alice alone is over budget. */
const BUDGET = 0.02;

const processes = new Processes();
const dir = tempDir('cae-team-');
let vm: string;
let vmalert: string;
const notified: { labels: Record<string, string> }[] = [];
/** What each person's exporter shows: spend, and sessions asking or in error. */
const truth = new Map<string, { spend: number; needing: number }>();

interface Vector { status: string; error?: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } }
const query = async (expr: string): Promise<Vector> =>
  (await fetch(`${vm}/api/v1/query?query=${encodeURIComponent(expr)}`)).json() as Promise<Vector>;
const total = (v: Vector) => v.data.result.reduce((a, r) => a + Number(r.value[1]), 0);

beforeAll(async () => {
  // An Alertmanager stand-in that records what vmalert sends.
  const notifier = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/api/v2/alerts') notified.push(...(JSON.parse(body) as { labels: Record<string, string> }[]));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => notifier.listen(0, '127.0.0.1', r));
  processes.onStop(() => new Promise((r) => notifier.close(() => r())));

  const vmPort = await freePort();
  vm = `http://127.0.0.1:${vmPort}`;
  const vmReady = processes.start('victoria-metrics', [`-storageDataPath=${join(dir, 'vm')}`, `-httpListenAddr=127.0.0.1:${vmPort}`,
    '-search.latencyOffset=0s', '-search.disableCache', '-loggerLevel=INFO'], /started VictoriaMetrics/);

  const exporters = await Promise.all(PEOPLE.map(async (p) => {
    const run = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()], envFor(p.home, {
      CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: String(10 * 365 * 86400),
      CODING_AGENT_EXPORTER_IDENTITY_USER: p.user,
      CODING_AGENT_EXPORTER_IDENTITY_TEAM: p.team,
    }));
    processes.add(run.child);
    const url = await run.url;
    const text = await until(async () => {
      const t = await (await fetch(`${url}/metrics`)).text();
      return sum(t, 'coding_agent_cost_usd_total') > 0 ? t : undefined;
    }, 20_000, `${p.user}'s first scan`);
    truth.set(p.user, {
      spend: sum(text, 'coding_agent_cost_usd_total'),
      needing: sum(text, 'coding_agent_sessions', { status: 'asking' }) + sum(text, 'coding_agent_sessions', { status: 'error' }),
    });
    return url.replace('http://', '');
  }));
  await vmReady;

  // Each person's agent: the provided config, with their target, identity and the central store.
  await Promise.all(PEOPLE.map(async (p, i) => {
    const config = parse(read(join(DEPLOY, 'team/prometheus-agent.yml')));
    config.global.scrape_interval = '1s';
    const job = config.scrape_configs[0];
    Object.assign(job, { scrape_interval: '1s', scrape_timeout: '1s' });
    job.static_configs[0] = { targets: [exporters[i]], labels: { user: p.user, team: p.team, instance: p.instance } };
    config.remote_write[0] = { url: `${vm}/api/v1/write`, queue_config: { batch_send_deadline: '1s' } };
    const file = join(dir, `agent-${p.user}.yml`);
    writeFileSync(file, stringify(config));
    await processes.start('prometheus', ['--enable-feature=agent', `--config.file=${file}`, `--storage.agent.path=${join(dir, `wal-${p.user}`)}`,
      `--web.listen-address=127.0.0.1:${await freePort()}`], /Server is ready to receive web requests/);
  }));

  // Our rules, with the budget between alice's and bob's spend and no waiting.
  mkdirSync(join(dir, 'rules'));
  writeFileSync(join(dir, 'rules/rules.yml'), read(join(PROM, 'rules.yml'))
    .replace(/(record: coding_agent:daily_budget_usd:threshold\n\s+expr: )vector\(50\)/, `$1vector(${BUDGET})`));
  const alerts = parse(read(join(PROM, 'alerts.yml')));
  for (const g of alerts.groups) for (const r of g.rules) if (r.alert === 'CodingAgentDailyBudgetExceeded') r.for = '0s';
  writeFileSync(join(dir, 'rules/alerts.yml'), stringify(alerts));
  const alertPort = await freePort();
  vmalert = `http://127.0.0.1:${alertPort}`;
  await processes.start('vmalert', [`-rule=${join(dir, 'rules/rules.yml')}`, `-rule=${join(dir, 'rules/alerts.yml')}`,
    `-datasource.url=${vm}`, `-remoteWrite.url=${vm}`, `-notifier.url=http://127.0.0.1:${(notifier.address() as AddressInfo).port}`,
    '-evaluationInterval=1s', '-remoteWrite.flushInterval=200ms', `-httpListenAddr=127.0.0.1:${alertPort}`], /listen|started/i);

  // Everyone's spend and sessions have arrived.
  await until(async () => {
    const spend = await query('sum by (user) (coding_agent_cost_usd_total)');
    const sessions = await query('count by (user) (coding_agent_sessions)');
    return spend.data.result.length === 3 && sessions.data.result.length === 3 ? true : undefined;
  }, 30_000, 'three people in VictoriaMetrics', 250);
}, 60_000);

afterAll(() => processes.stopAll());

interface Panel { title: string; targets?: { expr: string }[]; panels?: Panel[] }
const team = JSON.parse(read(join(DASHBOARDS, 'team.json'))) as { panels: Panel[] };
const queries = team.panels.flatMap((p) => [p, ...(p.panels ?? [])]).flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));

/** Grafana's variables: everyone, or one person. */
const substitute = (expr: string, user = '.*') => expr
  .replaceAll('$__range', '1h').replaceAll('$__rate_interval', '20s').replaceAll('$job', 'coding-agent-exporter')
  .replaceAll('$user', user).replace(/\$(instance|team|harness|project)\b/g, '.*');

describe('team path: three exporters, their agents, VictoriaMetrics and vmalert', () => {
  it('runs every Team dashboard query, each the sum of the three people', async () => {
    expect(queries.length).toBeGreaterThanOrEqual(8);
    for (const q of queries) {
      const all = await query(substitute(q.expr));
      expect(all.status, `${q.title}: ${all.error}`).toBe('success');
      expect(all.data.result.length, q.title).toBeGreaterThan(0);
      let each = 0;
      for (const p of PEOPLE) each += total(await query(substitute(q.expr, p.user)));
      expect(total(all), q.title).toBeCloseTo(each, 9);
    }
  });

  it('shows each person\'s spend, the team totals and the budget burn as the exporters count them', async () => {
    const spend = (user: string) => truth.get(user)!.spend;
    const everyone = PEOPLE.reduce((a, p) => a + spend(p.user), 0);
    const byTitle = async (title: string) => query(substitute(queries.find((q) => q.title === title)!.expr));
    const perLabel = (v: Vector, label: string) => Object.fromEntries(v.data.result.map((r) => [r.metric[label], Number(r.value[1])]));

    const people = perLabel(await byTitle('Spend by person, today'), 'user');
    for (const p of PEOPLE) expect(people[p.user], p.user).toBeCloseTo(spend(p.user), 9);
    const teams = perLabel(await byTitle('Spend by team, today'), 'team');
    expect(teams.red).toBeCloseTo(spend('alice') + spend('bob'), 9);
    expect(teams.blue).toBeCloseTo(spend('carol'), 9);
    expect(total(await byTitle('Spend by project, today'))).toBeCloseTo(everyone, 9);
    expect(total(await byTitle('Top models, today'))).toBeCloseTo(everyone, 9);
    const burn = perLabel(await until(async () => {
      const v = await byTitle('Budget burn, today'); // needs vmalert's threshold series
      return v.data.result.length === 3 ? v : undefined;
    }, 20_000, 'the threshold series', 250), 'user');
    for (const p of PEOPLE) expect(burn[p.user], p.user).toBeCloseTo(spend(p.user) / BUDGET, 6);
    expect(total(await byTitle('Sessions needing someone'))).toBe(PEOPLE.reduce((a, p) => a + truth.get(p.user)!.needing, 0));
  });

  it('fires the daily-budget alert in vmalert for the person over budget, and only for them', async () => {
    const firing = await until(async () => {
      const r = (await (await fetch(`${vmalert}/api/v1/alerts`)).json()) as { data: { alerts: { name: string; state: string; labels: Record<string, string> }[] } };
      const budget = r.data.alerts.filter((a) => a.name === 'CodingAgentDailyBudgetExceeded' && a.state === 'firing');
      return budget.length > 0 ? budget : undefined;
    }, 30_000, 'CodingAgentDailyBudgetExceeded firing', 250);
    // Per person: labelled with the person and their team, not with one of their machines.
    expect(firing.map((a) => [a.labels.user, a.labels.team, a.labels.instance])).toEqual([['alice', 'red', undefined]]);
    await until(async () => (notified.some((a) => a.labels.alertname === 'CodingAgentDailyBudgetExceeded') ? true : undefined), 10_000, 'the notification');
    expect(new Set(notified.filter((a) => a.labels.alertname === 'CodingAgentDailyBudgetExceeded').map((a) => a.labels.user))).toEqual(new Set(['alice']));
  });
});
