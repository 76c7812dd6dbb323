// `report --from` against a real VictoriaMetrics (behind basic auth) holding samples written at
// chosen instants: each day is cut at the report's zone's midnight (Kolkata, half an hour off UTC),
// a sample a second before midnight counts on the day before, a machine off for a day is not
// counted again, a reset inside a day keeps what grew before it, and a new series counts from 0.
// (The team test, test/deploy/team-e2e.test.ts, has exporters and their own reports.)

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAt, dayStart } from '../../src/report/store.js';
import { freePort, Processes } from '../helpers/processes.js';
import { envFor, FIXTURES, run, tempDir, until } from '../helpers/run.js';

const ZONE = 'Asia/Kolkata';
const DAY = 86_400_000;
const processes = new Processes();
let store: string;
const today = dayAt(Date.now(), ZONE);
const day = (back: number) => dayAt(dayStart(today, ZONE) - back * DAY + DAY / 2, ZONE);
const [d0, d1, d2] = [day(3), day(2), day(1)] as const;
const [b0, b1, b2, b3] = [d0, d1, d2, today].map((d) => dayStart(d, ZONE)) as [number, number, number, number];

const alice = 'harness="codex",project="p",model="gpt-5",user="alice",instance="a1"';
const bob = 'harness="codex",project="p",model="gpt-5",user="bob",instance="b1"';
const SAMPLES: [string, number, number][] = [
  [`coding_agent_cost_usd_total{${alice}}`, 100, b0 - 7_200_000],
  [`coding_agent_cost_usd_total{${alice}}`, 105, b0 - 1000],
  [`coding_agent_cost_usd_total{${alice}}`, 110, b0 + 1000],
  [`coding_agent_cost_usd_total{${alice}}`, 150, b1 - 1000],
  // d1: alice's machine is off. d2: 10 more, reset by --reset-state, then 3 and 5.
  [`coding_agent_cost_usd_total{${alice}}`, 160, b2 + 3_600_000],
  [`coding_agent_cost_usd_total{${alice}}`, 3, b2 + 7_200_000],
  [`coding_agent_cost_usd_total{${alice}}`, 8, b2 + 10_800_000],
  // bob's first tokens on d1.
  [`coding_agent_tokens_total{${bob},token_type="input"}`, 7, b1 + 1_800_000],
  [`coding_agent_tokens_total{${bob},token_type="input"}`, 20, b1 + 7_200_000],
  [`coding_agent_tokens_total{${bob},token_type="input"}`, 25, b3 - 1000],
];

beforeAll(async () => {
  const port = await freePort();
  const vm = `http://127.0.0.1:${port}`;
  await processes.start(
    'victoria-metrics',
    [
      `-storageDataPath=${join(tempDir('cae-store-'), 'vm')}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      '-search.latencyOffset=0s',
      '-search.disableCache',
      '-httpAuth.username=team',
      '-httpAuth.password=s3cret',
    ],
    /started VictoriaMetrics/,
  );
  const auth = { authorization: `Basic ${Buffer.from('team:s3cret').toString('base64')}` };
  // Its log line can come before its listener answers (seen once on a loaded machine).
  await until(
    async () => ((await fetch(`${vm}/health`, { headers: auth })).ok ? true : undefined),
    20_000,
    'VictoriaMetrics answering',
    100,
  );
  const body = SAMPLES.map(([series, value, ms]) => `${series} ${value} ${ms}`).join('\n');
  const r = await fetch(`${vm}/api/v1/import/prometheus`, { method: 'POST', headers: auth, body });
  expect(r.status).toBe(204);
  await until(
    async () => {
      await fetch(`${vm}/internal/force_flush`, { headers: auth });
      const q = (await (
        await fetch(`${vm}/api/v1/series?match[]={__name__=~"coding_agent_.*"}&start=${(b0 - DAY) / 1000}`, {
          headers: auth,
        })
      ).json()) as { data: unknown[] };
      return q.data.length === 2 ? true : undefined;
    },
    20_000,
    'the samples searchable',
    200,
  );
  store = `http://team:s3cret@127.0.0.1:${port}`;
}, 60_000);

afterAll(() => processes.stopAll());

interface Row {
  date: string;
  inputTokens: number;
  totalCost: number;
  userBreakdowns: { userName: string; inputTokens: number; cost: number }[];
}
const report = (args: string[]) =>
  run(['report', 'daily', '--json', '-z', ZONE, '--since', d0, '--until', d2, ...args], envFor(FIXTURES));

describe('report --from a store', () => {
  it("cuts each day at the zone's midnight and counts what each counter grew by in it, resets and gaps included", () => {
    const r = report(['--from', store, '--by', 'user']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const rows = (JSON.parse(r.stdout) as { daily: Row[] }).daily;
    expect(rows.map((d) => [d.date, d.inputTokens, d.totalCost])).toEqual([
      [d0, 0, 45],
      [d1, 20, 0],
      [d2, 5, 18],
    ]);
    expect(rows.map((d) => d.userBreakdowns.map((b) => [b.userName, b.inputTokens, b.cost]))).toEqual([
      [['alice', 0, 45]],
      [['bob', 20, 0]],
      [
        ['alice', 0, 18],
        ['bob', 5, 0],
      ],
    ]);
  });

  it("takes ccusage's -i: each project's days, from the store's counters", () => {
    const r = report(['--from', store, '-i']);
    expect(r.status, r.stderr).toBe(0);
    const { projects, totals } = JSON.parse(r.stdout) as {
      projects: Record<string, (Row & { project: string })[]>;
      totals: Record<string, unknown>;
    };
    expect(Object.keys(projects)).toEqual(['p']);
    expect(projects.p!.map((d) => [d.date, d.project, d.inputTokens, d.totalCost])).toEqual([
      [d0, 'p', 0, 45],
      [d1, 'p', 20, 0],
      [d2, 'p', 5, 18],
    ]);
    // The store has no requests, sessions or turns, as without -i.
    expect(projects.p![0]).not.toHaveProperty('requests');
    expect(totals).toMatchObject({ inputTokens: 25, totalCost: 63 });
    expect(totals).not.toHaveProperty('requests');
  });

  it('prints the split as a table, and says which store refused, without its password', () => {
    const table = run(
      ['report', 'daily', '-z', ZONE, '--since', d0, '--until', d2, '--from', store, '--by', 'instance'],
      envFor(FIXTURES),
    );
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/└ a1 .*\$45\.00/);
    const refused = report(['--from', store.replace('s3cret', 'wrong')]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^coding-agent-exporter: report --from http:\/\/127\.0\.0\.1:\d+\/: \/api\/v1\/query: HTTP 401/,
    );
    expect(refused.stderr).not.toContain('wrong');
  });
});
