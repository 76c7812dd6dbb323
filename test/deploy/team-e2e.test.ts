// The team path end to end, with Debian's binaries on loopback: three people on four machines
// (alice has a laptop and a desktop), each machine with an exporter on its own fixture home and a
// Prometheus in agent mode (deploy/team/prometheus-agent.yml, the person as target labels)
// remote-writing to one VictoriaMetrics; vmalert runs our recording and alerting rules against it.
// Every query of the Team dashboard returns the sum over the people and over the machines, and
// the daily-budget alert fires for alice, whose machines are each under the budget but together
// over it, and for nobody else.
//
// Three things are changed for a test that takes seconds, not days: intervals of 1 s; the daily
// budget and the alert's `for:` (copies of the rule files, the expressions untouched); and the
// test asks VictoriaMetrics to flush what it received every 200 ms (this version makes new series
// searchable only after about 10 s, and the rules build on each other's series three deep).
// The spend panels use increase(): VictoriaMetrics counts a counter that appears with a small
// first value as grown from 0 (Prometheus would need a sample before it), so the whole fixture
// spend shows within the window.
//
// `report --from` reads the same store: its report of today (when every exporter counted its
// fixture history) is the sum of each machine's own `report` over all the fixtures' days, per
// person, per machine and per model.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort, Processes } from '../helpers/processes.js';
import { envFor, FIXTURES, listening, ready, run, sum, tempDir, until } from '../helpers/run.js';
import { DASHBOARDS, DEPLOY, PROM, read } from './lib.js';

const MACHINES = [
  { user: 'alice', team: 'red', instance: 'alice-laptop', home: join(FIXTURES, 'home') },
  { user: 'alice', team: 'red', instance: 'alice-desktop', home: join(FIXTURES, 'captures/claude-code-2.1.197/tool') },
  { user: 'bob', team: 'red', instance: 'bob-laptop', home: join(FIXTURES, 'captures/claude-code/tool') },
  { user: 'carol', team: 'blue', instance: 'carol-desktop', home: join(FIXTURES, 'captures/gemini-cli/tool') },
];
const PEOPLE = [...new Set(MACHINES.map((m) => m.user))];
/**
 * Above each machine's spend (alice's laptop 0.036 USD, her desktop and bob 0.010 USD, carol
 * 0.001 USD), below alice's two machines together (0.046 USD).
 */
const BUDGET = 0.04;

const processes = new Processes();
const dir = tempDir('cae-team-');
let vm: string;
let vmalert: string;
const notified: { labels: Record<string, string> }[] = [];
/** What each machine's exporter shows: spend, and sessions asking or in error. */
const truth = new Map<string, { spend: number; needing: number }>();
/** Each machine's state folder and environment, for its own `report`. */
const machineRuns = new Map<string, { stateDir: string; env: NodeJS.ProcessEnv }>();
// The fixtures' records stay in the ledger however long after they were written the test runs.
const KEEP = ['--ledger.days', '100000'];
const spendOf = (user: string) =>
  MACHINES.filter((m) => m.user === user).reduce((a, m) => a + truth.get(m.instance)!.spend, 0);

interface Vector {
  status: string;
  error?: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}
/** An instant query, now or at `time` (seconds). */
const query = async (expr: string, time?: number): Promise<Vector> =>
  (
    await fetch(`${vm}/api/v1/query?query=${encodeURIComponent(expr)}${time === undefined ? '' : `&time=${time}`}`)
  ).json() as Promise<Vector>;
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
  const vmReady = processes.start(
    'victoria-metrics',
    [
      `-storageDataPath=${join(dir, 'vm')}`,
      `-httpListenAddr=127.0.0.1:${vmPort}`,
      '-search.latencyOffset=0s',
      '-search.disableCache',
      '-loggerLevel=INFO',
    ],
    /started VictoriaMetrics/,
  );
  const flusher = setInterval(() => void fetch(`${vm}/internal/force_flush`).catch(() => undefined), 200);
  processes.onStop(async () => clearInterval(flusher));

  const exporters = await Promise.all(
    MACHINES.map(async (p) => {
      const stateDir = tempDir();
      const env = envFor(p.home, {
        CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: String(10 * 365 * 86400),
        CODING_AGENT_EXPORTER_IDENTITY_USER: p.user,
        CODING_AGENT_EXPORTER_IDENTITY_TEAM: p.team,
      });
      machineRuns.set(p.instance, { stateDir, env });
      const exporter = listening(['--listen-address', '127.0.0.1:0', '--state-dir', stateDir, ...KEEP], env);
      processes.add(exporter.child);
      const url = await exporter.url;
      // The truth is what the whole first scan counted: a scrape during it sees part of the spend.
      await ready(url);
      const text = await (await fetch(`${url}/metrics`)).text();
      truth.set(p.instance, {
        spend: sum(text, 'coding_agent_cost_usd_total'),
        needing:
          sum(text, 'coding_agent_sessions', { status: 'asking' }) +
          sum(text, 'coding_agent_sessions', { status: 'error' }),
      });
      return url.replace('http://', '');
    }),
  );
  await vmReady;

  // Each machine's agent: the provided config, with its target, person and the central store.
  await Promise.all(
    MACHINES.map(async (p, i) => {
      const config = parse(read(join(DEPLOY, 'team/prometheus-agent.yml')));
      config.global.scrape_interval = '1s';
      const job = config.scrape_configs[0];
      Object.assign(job, { scrape_interval: '1s', scrape_timeout: '1s' });
      job.static_configs[0] = { targets: [exporters[i]], labels: { user: p.user, team: p.team, instance: p.instance } };
      config.remote_write[0] = { url: `${vm}/api/v1/write`, queue_config: { batch_send_deadline: '1s' } };
      const file = join(dir, `agent-${p.instance}.yml`);
      writeFileSync(file, stringify(config));
      await processes.start(
        'prometheus',
        [
          '--enable-feature=agent',
          `--config.file=${file}`,
          `--storage.agent.path=${join(dir, `wal-${p.instance}`)}`,
          `--web.listen-address=127.0.0.1:${await freePort()}`,
        ],
        /Server is ready to receive web requests/,
      );
    }),
  );

  // Our rules, with the budget between alice's machines and alice, and no waiting.
  mkdirSync(join(dir, 'rules'));
  writeFileSync(
    join(dir, 'rules/rules.yml'),
    read(join(PROM, 'rules.yml')).replace(
      /(record: coding_agent:daily_budget_usd:threshold\n\s+expr: )vector\(50\)/,
      `$1vector(${BUDGET})`,
    ),
  );
  const alerts = parse(read(join(PROM, 'alerts.yml')));
  for (const g of alerts.groups)
    for (const r of g.rules) if (r.alert === 'CodingAgentDailyBudgetExceeded') r.for = '0s';
  writeFileSync(join(dir, 'rules/alerts.yml'), stringify(alerts));
  const alertPort = await freePort();
  vmalert = `http://127.0.0.1:${alertPort}`;
  await processes.start(
    'vmalert',
    [
      `-rule=${join(dir, 'rules/rules.yml')}`,
      `-rule=${join(dir, 'rules/alerts.yml')}`,
      `-datasource.url=${vm}`,
      `-remoteWrite.url=${vm}`,
      `-notifier.url=http://127.0.0.1:${(notifier.address() as AddressInfo).port}`,
      '-evaluationInterval=1s',
      '-remoteWrite.flushInterval=200ms',
      `-httpListenAddr=127.0.0.1:${alertPort}`,
    ],
    /listen|started/i,
  );

  // Every machine's spend (two scrapes of it, for the rates) and sessions have arrived, and
  // vmalert's budget threshold (for the budget burn).
  await until(
    async () => {
      const spend = await query('count by (instance) (count_over_time(coding_agent_cost_usd_total[1m]) > 1)');
      const sessions = await query('count by (instance) (coding_agent_sessions)');
      const threshold = await query('coding_agent:daily_budget_usd:threshold');
      return spend.data.result.length === MACHINES.length &&
        sessions.data.result.length === MACHINES.length &&
        threshold.data.result.length === 1
        ? true
        : undefined;
    },
    30_000,
    'every machine and the budget threshold in VictoriaMetrics',
    250,
  );
}, 60_000);

afterAll(() => processes.stopAll());

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}
const team = JSON.parse(read(join(DASHBOARDS, 'team.json'))) as { panels: Panel[] };
const queries = team.panels
  .flatMap((p) => [p, ...(p.panels ?? [])])
  .flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));

/** Grafana's variables: everyone, or one person, or one machine. */
const substitute = (expr: string, { user = '.*', instance = '.*' } = {}) =>
  expr
    .replaceAll('$__range', '1h')
    .replaceAll('$__rate_interval', '20s')
    .replaceAll('$job', 'coding-agent-exporter')
    .replaceAll('$user', user)
    .replaceAll('$instance', instance)
    .replace(/\$(team|harness|project)\b/g, '.*');

describe('team path: three people on four machines, their agents, VictoriaMetrics and vmalert', () => {
  it('runs every Team dashboard query, each the sum of the people and the sum of the machines', async () => {
    expect(queries.length).toBeGreaterThanOrEqual(8);
    // One moment for all: the rates still change while the first samples are in their window.
    const at = Date.now() / 1000;
    for (const q of queries) {
      const all = await query(substitute(q.expr), at);
      expect(all.status, `${q.title}: ${all.error}`).toBe('success');
      expect(all.data.result.length, q.title).toBeGreaterThan(0);
      let people = 0;
      for (const user of PEOPLE) people += total(await query(substitute(q.expr, { user }), at));
      expect(total(all), `${q.title}, over the people`).toBeCloseTo(people, 9);
      let machines = 0;
      for (const { instance } of MACHINES) machines += total(await query(substitute(q.expr, { instance }), at));
      expect(total(all), `${q.title}, over the machines`).toBeCloseTo(machines, 9);
    }
  });

  it("shows each person's spend over their machines, the team totals and the budget burn as the exporters count them", async () => {
    // The fixtures make the case: every machine under the budget, alice's two over it.
    for (const m of MACHINES) expect(truth.get(m.instance)!.spend, m.instance).toBeLessThan(BUDGET);
    expect(spendOf('alice')).toBeGreaterThan(BUDGET);
    const everyone = PEOPLE.reduce((a, user) => a + spendOf(user), 0);
    const byTitle = async (title: string, vars = {}) =>
      query(substitute(queries.find((q) => q.title === title)!.expr, vars));
    const perLabel = (v: Vector, label: string) =>
      Object.fromEntries(v.data.result.map((r) => [r.metric[label], Number(r.value[1])]));

    const people = perLabel(await byTitle('Spend by person, today'), 'user');
    expect(Object.keys(people).sort()).toEqual(PEOPLE);
    for (const user of PEOPLE) expect(people[user], user).toBeCloseTo(spendOf(user), 9);
    const teams = perLabel(await byTitle('Spend by team, today'), 'team');
    expect(teams.red).toBeCloseTo(spendOf('alice') + spendOf('bob'), 9);
    expect(teams.blue).toBeCloseTo(spendOf('carol'), 9);
    expect(total(await byTitle('Spend by project, today'))).toBeCloseTo(everyone, 9);
    expect(total(await byTitle('Top models, today'))).toBeCloseTo(everyone, 9);
    const burn = perLabel(await byTitle('Budget burn, today'), 'user');
    expect(Object.keys(burn).sort()).toEqual(PEOPLE);
    for (const user of PEOPLE) expect(burn[user], user).toBeCloseTo(spendOf(user) / BUDGET, 6);
    expect(burn.alice).toBeGreaterThan(1);
    // One of alice's machines alone (the instance variable) is under the budget.
    for (const instance of ['alice-laptop', 'alice-desktop']) {
      const one = perLabel(await byTitle('Budget burn, today', { instance }), 'user');
      expect(one, instance).toEqual({ alice: expect.closeTo(truth.get(instance)!.spend / BUDGET, 6) });
      expect(one.alice, instance).toBeLessThan(1);
    }
    expect(total(await byTitle('Sessions needing someone'))).toBe(
      MACHINES.reduce((a, m) => a + truth.get(m.instance)!.needing, 0),
    );
  });

  it("reports from the store what each machine's own report says, summed over the people, the machines and the models", async () => {
    interface Use {
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      cacheCreationTokens: number;
      totalTokens: number;
      totalCost: number;
    }
    type Split = Use & Record<string, unknown>;
    interface Report {
      daily: (Use & { date: string; modelBreakdowns: (Use & { modelName: string; cost: number })[] } & Record<
          string,
          unknown
        >)[];
      totals: Use & Record<string, unknown>;
    }
    const report = (args: string[], env: NodeJS.ProcessEnv = envFor(dir)) => {
      const r = run(['report', 'daily', '--json', '-z', 'UTC', ...args], env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout) as Report;
    };
    const FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'totalTokens'] as const;
    const add = (into: Record<string, number>, u: Use, cost = u.totalCost) => {
      for (const f of FIELDS) into[f] = (into[f] ?? 0) + u[f];
      into.totalCost = (into.totalCost ?? 0) + cost;
    };
    const expectSame = (got: Record<string, number> | undefined, want: Record<string, number>, what: string) => {
      expect(got, what).toBeDefined();
      for (const f of FIELDS) expect(got![f], `${what}: ${f}`).toBe(want[f]);
      expect(got!.totalCost, `${what}: cost`).toBeCloseTo(want.totalCost!, 9);
    };
    const cost = (u: Split) => u.totalCost ?? u.cost;

    // Each machine's own report of every day, summed by person, by machine and by model.
    const perUser: Record<string, Record<string, number>> = {};
    const perInstance: Record<string, Record<string, number>> = {};
    const perModel: Record<string, Record<string, number>> = {};
    const all: Record<string, number> = {};
    for (const m of MACHINES) {
      const { stateDir, env } = machineRuns.get(m.instance)!;
      const own = report(['--since', '2000-01-01', '--state-dir', stateDir, ...KEEP], env);
      expect(own.totals.totalTokens, m.instance).toBeGreaterThan(0);
      add(all, own.totals);
      add((perUser[m.user] ??= {}), own.totals);
      add((perInstance[m.instance] ??= {}), own.totals);
      for (const d of own.daily) for (const b of d.modelBreakdowns) add((perModel[b.modelName] ??= {}), b, b.cost);
    }
    expect(all.totalCost).toBeCloseTo(
      MACHINES.reduce((a, m) => a + truth.get(m.instance)!.spend, 0),
      9,
    );

    // The store's: every exporter counted its history today, so today holds it all.
    const byUser = report(['--from', vm, '--by', 'user']);
    expect(byUser.daily.map((d) => d.date)).toEqual([new Date().toISOString().slice(0, 10)]);
    expectSame(byUser.totals as unknown as Record<string, number>, all, 'the team');
    // No requests, sessions or turns: the store has none by model.
    expect(Object.keys(byUser.totals).filter((k) => ['requests', 'sessions', 'turns'].includes(k))).toEqual([]);
    const splits = (r: Report, label: string) =>
      Object.fromEntries(
        (r.daily[0]![`${label}Breakdowns`] as Split[]).map((b) => {
          const u: Record<string, number> = {};
          add(u, b, cost(b));
          return [b[`${label}Name`] as string, u];
        }),
      );
    const users = splits(byUser, 'user');
    expect(Object.keys(users).sort()).toEqual(PEOPLE);
    for (const user of PEOPLE) expectSame(users[user], perUser[user]!, user);
    const instances = splits(report(['--from', vm, '--by', 'instance']), 'instance');
    expect(Object.keys(instances).sort()).toEqual(MACHINES.map((m) => m.instance).sort());
    for (const m of MACHINES) expectSame(instances[m.instance], perInstance[m.instance]!, m.instance);
    const models = splits(report(['--from', vm, '--by', 'model']), 'model');
    expect(Object.keys(models).sort()).toEqual(Object.keys(perModel).sort());
    for (const model of Object.keys(perModel)) expectSame(models[model], perModel[model]!, model);
    // A filter that matches nothing is nothing; a week's and a month's report hold the same.
    expectSame(
      report(['--from', vm, '--project', 'no-such-project']).totals as unknown as Record<string, number>,
      { ...Object.fromEntries(FIELDS.map((f) => [f, 0])), totalCost: 0 },
      'no project',
    );
    for (const kind of ['weekly', 'monthly']) {
      const r = run(['report', kind, '--json', '-z', 'UTC', '--from', vm], envFor(dir));
      expectSame((JSON.parse(r.stdout) as Report).totals as unknown as Record<string, number>, all, kind);
    }
  });

  it('fires the daily-budget alert in vmalert for the person whose machines together are over budget, and only for them', async () => {
    const firing = await until(
      async () => {
        // Judged once the rule the alert sums has every machine's 24 hours.
        if ((await query('instance:coding_agent_cost_usd:increase1d')).data.result.length < MACHINES.length)
          return undefined;
        const r = (await (await fetch(`${vmalert}/api/v1/alerts`)).json()) as {
          data: { alerts: { name: string; state: string; value: string; labels: Record<string, string> }[] };
        };
        const budget = r.data.alerts.filter((a) => a.name === 'CodingAgentDailyBudgetExceeded' && a.state === 'firing');
        return budget.length > 0 ? budget : undefined;
      },
      30_000,
      'CodingAgentDailyBudgetExceeded firing',
      250,
    );
    // Per person: labelled with the person and their team, not with one of their machines, and
    // the value is both machines' spend.
    expect(firing.map((a) => [a.labels.user, a.labels.team, a.labels.instance])).toEqual([['alice', 'red', undefined]]);
    expect(Number(firing[0]!.value)).toBeCloseTo(spendOf('alice'), 6);
    await until(
      async () => (notified.some((a) => a.labels.alertname === 'CodingAgentDailyBudgetExceeded') ? true : undefined),
      10_000,
      'the notification',
    );
    expect(
      new Set(
        notified.filter((a) => a.labels.alertname === 'CodingAgentDailyBudgetExceeded').map((a) => a.labels.user),
      ),
    ).toEqual(new Set(['alice']));
  });
});
