// `report`: its numbers are the counters' (the same events fill both), they are ccusage's on the
// same files (where the two price a model the same; days in any time zone), a --reset-state rebuilds them from the files,
// a bad flag is named, an empty state is an empty table, and the command loads no reader when a
// state exists.

import { Database } from '../helpers/sqlite.js';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCorpus } from '../../bench/corpus.js';
import { importGraph, reachable } from '../architecture/imports.js';
import { envFor, FIXTURES, run, sum, tempDir } from '../helpers/run.js';
import { WEEKDAYS } from '../../src/config/schema.js';
import type { LedgerRow } from '../../src/state/db.js';
import { lastSince, periodRows, selectRows } from '../../src/report/report.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const CCUSAGE = resolve(__dirname, '../../node_modules/.bin/ccusage');
// The fixtures' records stay in the ledger however long after they were written the test runs.
const KEEP = ['--ledger.days', '100000'];

interface Totals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  totalTokens: number;
  totalCost: number;
  requests: number;
  turns: Record<string, number>;
}
interface Day extends Totals {
  date: string;
  modelsUsed: string[];
  modelBreakdowns: { modelName: string; cost: number; cacheCreationTokens: number }[];
}
const report = (args: string[], env: NodeJS.ProcessEnv) => {
  const r = run(['report', ...args, '--json'], env);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { daily: Day[]; totals: Totals };
};

describe('report', () => {
  const env = envFor(join(FIXTURES, 'home'));

  it('adds up to the counters of the same files, per harness: tokens by type, cost, turns', () => {
    const state = tempDir();
    const once = run(['once', '--state-dir', state, ...KEEP], env);
    expect(once.status).toBe(0);
    const harnesses = [
      ...new Set([...once.stdout.matchAll(/^coding_agent_tokens_total\{[^}]*harness="([^"]+)"/gm)].map((m) => m[1]!)),
    ];
    expect(harnesses.length).toBeGreaterThan(3);
    for (const harness of [undefined, ...harnesses]) {
      const match: Record<string, string> = harness ? { harness } : {};
      const { totals, daily } = report(
        ['--state-dir', state, '-z', 'UTC', ...(harness ? ['--harness', harness] : [])],
        env,
      );
      expect(totals.inputTokens).toBe(sum(once.stdout, 'coding_agent_tokens_total', { ...match, token_type: 'input' }));
      expect(totals.outputTokens).toBe(
        sum(once.stdout, 'coding_agent_tokens_total', { ...match, token_type: 'output' }),
      );
      expect(totals.cacheReadTokens).toBe(
        sum(once.stdout, 'coding_agent_tokens_total', { ...match, token_type: 'cache_read' }),
      );
      expect(totals.cacheCreationTokens).toBe(
        sum(once.stdout, 'coding_agent_tokens_total', { ...match, token_type: 'cache_write' }),
      );
      expect(totals.totalCost).toBeCloseTo(sum(once.stdout, 'coding_agent_cost_usd_total', match), 9);
      for (const outcome of ['completed', 'failed', 'interrupted']) {
        expect(totals.turns[outcome]).toBe(sum(once.stdout, 'coding_agent_turns_total', { ...match, outcome }));
      }
      expect(daily.reduce((a, d) => a + d.totalTokens, 0)).toBe(totals.totalTokens);
    }
  });

  it('is rebuilt from the files still there on --reset-state', () => {
    const state = tempDir();
    expect(run(['once', '--state-dir', state, ...KEEP], env).status).toBe(0);
    const before = report(['--state-dir', state, '-z', 'UTC'], env);
    expect(before.daily.length).toBeGreaterThan(0);
    expect(run(['once', '--state-dir', state, '--reset-state', ...KEEP], env).status).toBe(0);
    expect(report(['--state-dir', state, '-z', 'UTC'], env)).toEqual(before);
  });

  it('reads the files itself, writing nothing, where no state exists', () => {
    const state = join(tempDir(), 'none');
    const fromFiles = report(['--state-dir', state, '-z', 'UTC', ...KEEP], env);
    expect(existsSync(state)).toBe(false);
    const kept = tempDir();
    expect(run(['once', '--state-dir', kept, ...KEEP], env).status).toBe(0);
    expect(report(['--state-dir', kept, '-z', 'UTC'], env)).toEqual(fromFiles);
  });

  it.each([
    'home',
    ...readdirSync(join(FIXTURES, 'homes'))
      .filter((h) => h !== 'README.md')
      .map((h) => `homes/${h}`),
  ])(
    'reads from the files (no state) what it reads from the state once wrote of them: days, sessions and blocks of every harness (%s)',
    (home) => {
      const homeEnv = envFor(join(FIXTURES, home));
      const kept = tempDir();
      expect(run(['once', '--state-dir', kept, ...KEEP], homeEnv).status).toBe(0);
      const none = join(tempDir(), 'none');
      // Sums of dollars may differ in their last bit: added in another order (once commits file by
      // file). An active block's projection is of the time the report runs.
      const json = (args: string[]) =>
        JSON.parse(run(['report', ...args, '--json'], homeEnv).stdout, (k, v: unknown) =>
          k === 'projection' ? undefined : typeof v === 'number' ? Number(v.toPrecision(12)) : v,
        ) as unknown;
      const sessions = (json(['session', '--state-dir', kept]) as { sessions: { harness: string }[] }).sessions;
      const harnesses = [...new Set(sessions.map((s) => s.harness))];
      expect(harnesses.length).toBeGreaterThan(1);
      const reports = [
        ['daily', '--breakdown', 'harness'],
        ['session'],
        ...harnesses.map((h) => ['blocks', '--harness', h]),
      ];
      for (const args of reports) {
        const fromState = json([...args, '-z', 'UTC', '--state-dir', kept]);
        expect(JSON.stringify(fromState).length).toBeGreaterThan(100);
        expect([args, json([...args, '-z', 'UTC', '--state-dir', none, ...KEEP])]).toEqual([args, fromState]);
      }
    },
  );

  it('reads from the files what once read where projects fold past project.max (harnesses then read one after the other, as once reads them)', () => {
    const homeEnv = {
      ...envFor(join(FIXTURES, 'homes/editor-stores-and-clis')),
      CODING_AGENT_EXPORTER_PROJECT_MAX: '1',
    };
    const kept = tempDir();
    expect(run(['once', '--state-dir', kept, ...KEEP], homeEnv).status).toBe(0);
    const sessions = (args: string[]) =>
      JSON.parse(run(['report', 'session', '-z', 'UTC', '--json', ...args], homeEnv).stdout) as {
        sessions: { project: string; harness: string }[];
      };
    const fromState = sessions(['--state-dir', kept]);
    expect(new Set(fromState.sessions.map((s) => s.harness)).size).toBeGreaterThan(1);
    expect(fromState.sessions.map((s) => s.project)).toContain('other');
    expect(sessions(['--state-dir', join(tempDir(), 'none'), ...KEEP])).toEqual(fromState);
  });

  it('prints an empty table with its totals row for an empty state, exit 0', () => {
    const empty = envFor(tempDir());
    const state = tempDir();
    expect(run(['once', '--state-dir', state], empty).status).toBe(0);
    const table = run(['report', '--state-dir', state], empty);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(
      /^Date +Models +Input +Output +Cache Read +Cache Write +Total Tokens +Cost\n─+.*\n─+.*\nTotal +0 +0 +0 +0 +0 +\$0\.00\n$/,
    );
    expect(report(['--state-dir', state], empty)).toMatchObject({
      daily: [],
      totals: { inputTokens: 0, totalTokens: 0, totalCost: 0 },
    });
    for (const kind of ['weekly', 'monthly', 'session', 'blocks'])
      expect(run(['report', kind, '--state-dir', state], empty).status).toBe(0);
  });

  it('colours a table on a pipe with --color', () => {
    const state = tempDir();
    expect(run(['once', '--state-dir', state, ...KEEP], env).status).toBe(0);
    const plain = run(['report', '--state-dir', state, '-z', 'UTC'], env);
    expect(plain.stdout).not.toContain('\x1b[');
    const coloured = run(['report', '--color', '--state-dir', state, '-z', 'UTC'], { ...env, NO_COLOR: '1' });
    expect(coloured.status).toBe(0);
    // The header in cyan, the totals in yellow, the rest as without colour.
    expect(coloured.stdout.startsWith('\x1b[36mDate ')).toBe(true);
    expect(coloured.stdout).toContain('\x1b[33mTotal ');
    expect(['\x1b[36m', '\x1b[33m', '\x1b[0m'].reduce((t, code) => t.replaceAll(code, ''), coloured.stdout)).toBe(
      plain.stdout,
    );
  });

  it("splits by project with ccusage's -i: daily as ccusage (each project's days, under a line naming it), weekly and monthly under each period", () => {
    const state = tempDir();
    expect(run(['once', '--state-dir', state, ...KEEP], env).status).toBe(0);
    const at = ['--state-dir', state, '-z', 'UTC'];
    const daily = report(at, env);
    const instances = run(['report', '-i', '-j', ...at], env);
    expect(instances.status).toBe(0);
    const { projects, totals } = JSON.parse(instances.stdout) as {
      projects: Record<string, (Day & { project: string })[]>;
      totals: Totals;
    };
    expect(Object.keys(projects)).toContain('demo-app');
    expect(totals).toEqual(daily.totals);
    for (const [project, days] of Object.entries(projects)) {
      expect(days.length).toBeGreaterThan(0);
      for (const d of days) expect(d).toMatchObject({ project, period: d.date });
      // Each project's days are what --project gives.
      expect(days.map(({ project: _, ...d }) => d)).toEqual(report([...at, '-p', project], env).daily);
    }
    const table = run(['report', '-i', ...at], env).stdout.split('\n');
    const line = table.indexOf('Project: demo-app');
    expect(line).toBeGreaterThan(1);
    expect(table[line + 1]).toMatch(new RegExp(`^${projects['demo-app']![0]!.date} +- `));
    for (const kind of ['weekly', 'monthly'])
      expect(JSON.parse(run(['report', kind, '-i', '-j', ...at], env).stdout)).toEqual(
        JSON.parse(run(['report', kind, '--breakdown', 'project', '-j', ...at], env).stdout),
      );
  });

  it('skips and counts the rows of a state database that are not as the exporter writes them', () => {
    const empty = envFor(tempDir());
    const state = tempDir();
    expect(run(['once', '--state-dir', state], empty).status).toBe(0);
    const hour = 490_000; // 2025-11-24
    const db = new Database(join(state, 'state.db'));
    const add =
      db.prepare(`INSERT INTO ledger (hour, quarter, harness, project, model, input, output, cache_read, requests, first_ms, last_ms)
      VALUES (?, 0, 'claude-code', 'p', ?, ?, ?, ?, 1, ?, ?)`);
    add.run(hour, 'good', 100, 50, 0, hour * 3_600_000, hour * 3_600_000 + 60_000);
    add.run(hour, 'bad-counts', '0abc', 1e300, -5150, hour * 3_600_000, hour * 3_600_000);
    add.run(1e12, 'bad-hour', 5, 5, 0, null, null);
    const put = db.prepare('INSERT INTO sessions (key, data) VALUES (?, ?)');
    const session = {
      id: 's-1',
      harness: 'claude-code',
      project: 'p',
      model: 'good',
      startedAt: hour * 3_600_000,
      lastActivityAt: hour * 3_600_000 + 60_000,
      tokens: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0,
    };
    put.run('a', JSON.stringify(session));
    put.run('b', 'not json');
    put.run(
      'c',
      JSON.stringify({ ...session, id: 's-2', startedAt: 'yesterday', tokens: { ...session.tokens, input: '0abc' } }),
    );
    db.close();

    const daily = run(['report', '--json', '-z', 'UTC', '--state-dir', state], empty);
    expect(daily.status).toBe(0);
    expect(daily.stderr).toMatch(
      /^coding-agent-exporter: report: 2 rows of .*state\.db skipped: not as the exporter writes them/,
    );
    expect(JSON.parse(daily.stdout)).toMatchObject({
      daily: [{ date: '2025-11-24', totalTokens: 150, modelsUsed: ['good'] }],
      totals: { totalTokens: 150 },
    });
    expect(run(['report', 'blocks', '--json', '--state-dir', state], empty).stdout).not.toMatch(/NaN|abc/);

    const sessions = run(['report', 'session', '--json', '--state-dir', state], empty);
    expect(sessions.status).toBe(0);
    expect(sessions.stderr).toMatch(/: 4 rows of .*skipped/); // the ledger's two and the sessions' two
    expect(JSON.parse(sessions.stdout)).toMatchObject({
      sessions: [{ sessionId: 's-1', totalTokens: 150 }],
      totals: { totalTokens: 150 },
    });
  });

  it.each([
    [
      ['report', '--since', '2026-13-01'],
      /--since: expected a duration such as 30m, 12h or 7d, or a day as YYYY-MM-DD or YYYYMMDD, got "2026-13-01"/,
    ],
    [['report', '--until', 'yesterday'], /--until: expected a date/],
    [['report', '--since', '20260301', '--until', '2026-02-01'], /--since 2026-03-01 is after --until 2026-02-01/],
    [['report', '--breakdown', 'day'], /--breakdown: expected one of model, project, harness, got "day"/],
    [['report', '--harness', 'claude'], /--harness: unknown harness "claude"/],
    [['report', '-z', 'Mars/Olympus'], /--timezone: unknown time zone "Mars\/Olympus"/],
    [['report', 'weekley'], /unknown report "weekley" \(did you mean weekly\?\)/],
    [['report', 'daily', 'more'], /unexpected argument "more"/],
    [['sessions', '--until', '2026-01-01'], /--until: only the report command takes it/],
    [['report', '--reset-state'], /--reset-state: only the serve, once and sessions commands take it/],
  ])('refuses %j, naming the flag', (args, message) => {
    const r = run([...args, '--state-dir', tempDir()], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("takes a day in both of ccusage's forms, and keeps --since a duration for sessions", () => {
    const state = tempDir();
    expect(run(['once', '--state-dir', state, ...KEEP], env).status).toBe(0);
    const all = report(['--state-dir', state, '-z', 'UTC'], env).daily;
    const day = all.at(-1)!.date;
    const one = report(['--state-dir', state, '-z', 'UTC', '--since', day.replace(/-/g, ''), '--until', day], env);
    expect(one.daily.map((d) => d.date)).toEqual([day]);
    expect(run(['sessions', '--since', '7d', '--state-dir', state], env).status).toBe(0);
  });

  it('loads no reader, collector, output or agent when a state exists (the files are read only without one)', () => {
    expect(readFileSync(join(SRC, 'cli/run.ts'), 'utf8')).toContain("import('./report.js')");
    const seen = reachable(importGraph(SRC, { dynamic: false }), ['main.ts', 'cli/report.ts']);
    expect(
      [...seen].filter((m) =>
        /^(agent|collectors\/|metrics\/|process\/|readers\/|cli\/(help|top|demo|statusline))/.test(m),
      ),
    ).toEqual([]);
  });
});

describe('report against ccusage on the same files', () => {
  let home: string;
  let state: string;
  beforeAll(() => {
    home = ensureCorpus(tempDir(), 42, 6).corpus.home;
    state = tempDir();
    expect(run(['once', '--state-dir', state, ...KEEP], envFor(home)).status).toBe(0);
  }, 120_000);

  const ccusage = (args: string[], kind = 'daily', at = home, flags: string[] = []) => {
    const r = spawnSync(CCUSAGE, [...args, kind, ...flags, '--json', '--offline', '--timezone', 'UTC'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: at,
        CLAUDE_CONFIG_DIR: join(at, '.claude'),
        CODEX_HOME: join(at, '.codex'),
        TZ: 'UTC',
      },
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      blocks: Record<string, unknown>[];
      projects: Record<string, Record<string, unknown>[]>;
      totals: Record<string, unknown>;
      daily: (Omit<Day, 'modelBreakdowns'> & {
        costUSD?: number;
        models?: Record<string, { cacheCreationTokens: number }>;
        modelBreakdowns?: Day['modelBreakdowns'];
      })[];
    };
  };
  const tokens = (d: Omit<Totals, 'totalCost' | 'requests' | 'turns'>) => ({
    inputTokens: d.inputTokens,
    outputTokens: d.outputTokens,
    cacheReadTokens: d.cacheReadTokens,
    cacheCreationTokens: d.cacheCreationTokens,
    totalTokens: d.totalTokens,
  });

  it('Claude Code: the same tokens and cost per day as `ccusage claude daily`', () => {
    const theirs = ccusage(['claude']).daily;
    const ours = report(['--state-dir', state, '-z', 'UTC', '--harness', 'claude-code'], envFor(home)).daily;
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.map((d) => [d.date, tokens(d)])).toEqual(theirs.map((d) => [d.date, tokens(d)]));
    ours.forEach((d, i) => expect(d.totalCost).toBeCloseTo(theirs[i]!.totalCost, 9));
  });

  it("Claude Code: `-i` is `ccusage claude daily -i`'s JSON, every field of it, each project's days the same", () => {
    const theirs = ccusage(['claude'], 'daily', home, ['-i']);
    const r = run(['report', 'claude', 'daily', '-i', '-j', '--state-dir', state, '-z', 'UTC'], envFor(home));
    expect(r.status, r.stderr).toBe(0);
    const ours = JSON.parse(r.stdout) as typeof theirs;
    expect(Object.keys(ours)).toEqual(['projects', 'totals']);
    // ccusage keys a project by Claude Code's folder (its working folder, every other character a
    // dash); the report by its label, as the metrics and `-p` name it: here the folder's name.
    const folder = (project: string) => `-home-dev-src-${project}`;
    expect(Object.keys(ours.projects).length).toBeGreaterThan(1);
    expect(Object.keys(ours.projects).map(folder)).toEqual(Object.keys(theirs.projects));
    const fields = (o: object) => Object.keys(o).sort();
    const has = (mine: object, their: object) => expect(fields(mine)).toEqual(expect.arrayContaining(fields(their)));
    has(ours.totals, theirs.totals);
    for (const [project, days] of Object.entries(ours.projects)) {
      const their = theirs.projects[folder(project)]!;
      expect(days.map((d) => [d.date, d.project, tokens(d as unknown as Totals), d.modelsUsed])).toEqual(
        their.map((d) => [d.date, project, tokens(d as unknown as Totals), d.modelsUsed]),
      );
      days.forEach((d, i) => {
        has(d, their[i]!);
        (d.modelBreakdowns as object[]).forEach((m, j) => has(m, (their[i]!.modelBreakdowns as object[])[j]!));
        expect(d.totalCost as number).toBeCloseTo(their[i]!.totalCost as number, 9);
      });
    }
    expect(tokens(ours.totals as unknown as Totals)).toEqual(tokens(theirs.totals as unknown as Totals));
  });

  // ccusage's price table (LiteLLM's) gives these OpenAI models a cache-write price of 1.25 times
  // their input price; the exporter's (genai-prices) gives none, so a cache write costs the input
  // price, as OpenAI bills it (it publishes input, cached input and output prices, no cache write).
  // ccusage's cost is higher by this much per cache-write token (README); every other model the
  // same (gpt-5.1-codex among them).
  const CACHE_WRITE_GAP: Record<string, number> = {
    'gpt-5': 0.3125e-6, // $1.5625 against $1.25 a million
    'gpt-5-codex': 0.3125e-6, // the same
    'gpt-5.1-codex-mini': 0.0625e-6, // $0.3125 against $0.25
    'gpt-4.1': 0.5e-6, // $2.50 against $2.00
  };

  /** Codex's days as ccusage and the report give them: equal tokens, ccusage's cost higher by the cache-write gap; the models that differed. */
  const sameCodexDays = (at: string, state: string[]) => {
    const theirs = ccusage(['codex'], 'daily', at).daily;
    const ours = report([...state, '-z', 'UTC', '--harness', 'codex', ...KEEP], envFor(at)).daily;
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.map((d) => [d.date, tokens(d)])).toEqual(theirs.map((d) => [d.date, tokens(d)]));
    const differed = new Set<string>();
    ours.forEach((d, i) => {
      const models = theirs[i]!.models!;
      const gap = Object.entries(models).reduce(
        (a, [m, u]) => a + u.cacheCreationTokens * (CACHE_WRITE_GAP[m] ?? 0),
        0,
      );
      for (const [m, u] of Object.entries(models)) if (u.cacheCreationTokens > 0 && CACHE_WRITE_GAP[m]) differed.add(m);
      expect(theirs[i]!.costUSD! - d.totalCost).toBeCloseTo(gap, 9);
    });
    return differed;
  };

  it('Codex: the same tokens per day as `ccusage codex daily`; the cost too but for the cache writes ccusage prices higher for gpt-5 (README)', () => {
    expect(sameCodexDays(home, ['--state-dir', state]).size).toBeGreaterThan(0);
  });

  it('Codex with gpt-5.1-codex-mini and gpt-4.1: ccusage prices their cache writes higher too, by $0.0625 and $0.50 a million (README)', () => {
    // The corpus's Codex sessions, each given one of the two models.
    const at = tempDir();
    cpSync(join(home, '.codex'), join(at, '.codex'), { recursive: true });
    const rollouts = readdirSync(join(at, '.codex'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
    rollouts.forEach((f, i) => {
      const path = join(at, '.codex', f);
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replaceAll(
          /"model":"[^"]+"/g,
          `"model":"${i % 2 === 0 ? 'gpt-5.1-codex-mini' : 'gpt-4.1'}"`,
        ),
      );
    });
    expect(sameCodexDays(at, ['--state-dir', join(tempDir(), 'none')])).toEqual(
      new Set(['gpt-5.1-codex-mini', 'gpt-4.1']),
    );
  });

  it('Claude Code: the same 5-hour blocks as `ccusage claude blocks` (start, last request, tokens, cost), and the same gaps between them', () => {
    const pick = (b: Record<string, unknown>) => ({
      id: b.id,
      isGap: b.isGap,
      startTime: b.startTime,
      endTime: b.endTime,
      actualEndTime: b.actualEndTime,
      tokenCounts: b.tokenCounts,
      models: b.models,
    });
    const theirs = ccusage(['claude'], 'blocks').blocks;
    // ccusage's command line as it is: Claude Code's blocks are the default list.
    const r = run(['report', 'blocks', '-j', '--state-dir', state], envFor(home));
    const ours = (JSON.parse(r.stdout) as { blocks: Record<string, unknown>[] }).blocks;
    expect(ours.filter((b) => !b.isGap).length).toBeGreaterThan(1);
    expect(ours.filter((b) => b.isGap).length).toBeGreaterThan(0);
    expect(ours.map(pick)).toEqual(theirs.map(pick));
    ours.forEach((b, i) => expect(b.costUSD as number).toBeCloseTo(theirs[i]!.costUSD as number, 9));
  });
});

describe('report in a time zone a half or three quarters of an hour off UTC, against ccusage', () => {
  // Claude Code requests either side of midnight in Kolkata (18:30 UTC), Kathmandu (18:15 UTC)
  // and Adelaide (13:30 UTC in its summer, 14:30 UTC in its winter).
  const times = [
    '2026-03-01T18:10:00Z',
    '2026-03-01T18:20:00Z',
    '2026-03-01T18:40:00Z',
    '2026-01-15T13:20:00Z',
    '2026-01-15T13:40:00Z',
    '2026-07-15T14:20:00Z',
    '2026-07-15T14:40:00Z',
  ];
  const home = tempDir();
  const state = tempDir();
  beforeAll(() => {
    const folder = join(home, '.claude/projects/-src-app');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'cc1.jsonl'),
      times
        .map(
          (ts, i) =>
            `${JSON.stringify({
              type: 'assistant',
              timestamp: ts,
              sessionId: 'cc1',
              cwd: '/src/app',
              uuid: `u-${i}`,
              requestId: `req_${i}`,
              message: {
                id: `msg_${i}`,
                role: 'assistant',
                model: 'claude-sonnet-4-5',
                content: [{ type: 'text', text: 'x' }],
                usage: {
                  input_tokens: 10 + i,
                  output_tokens: 100 * (i + 1),
                  cache_read_input_tokens: 0,
                  cache_creation_input_tokens: 0,
                },
              },
            })}\n`,
        )
        .join(''),
    );
    expect(run(['once', '--state-dir', state, ...KEEP], envFor(home)).status).toBe(0);
  }, 60_000);

  it.each(['Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Adelaide'])(
    '%s: the same tokens per day as `ccusage claude daily`',
    (zone) => {
      const r = spawnSync(CCUSAGE, ['claude', 'daily', '--json', '--offline', '--timezone', zone], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), TZ: zone },
      });
      expect(r.status, r.stderr).toBe(0);
      const theirs = (JSON.parse(r.stdout) as { daily: Day[] }).daily;
      const ours = report(['--state-dir', state, '-z', zone], envFor(home)).daily;
      expect(ours.length).toBeGreaterThan(3);
      expect(ours.map((d) => [d.date, d.inputTokens, d.outputTokens])).toEqual(
        theirs.map((d) => [d.date, d.inputTokens, d.outputTokens]),
      );
    },
  );
});

describe('weeks', () => {
  // One request a day, 2026-03-01 to 03-14 at 20:00 UTC (the next day in Kolkata and Kiritimati),
  // its input tokens the day of the month.
  const rows: LedgerRow[] = Array.from({ length: 14 }, (_, i) => {
    const ms = Date.UTC(2026, 2, i + 1, 20);
    return {
      hour: ms / 3_600_000,
      quarter: 0,
      harness: 'claude-code',
      project: 'p',
      model: 'claude-sonnet-4-5',
      input: i + 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      costUsd: 0,
      requests: 1,
      sessions: 0,
      turnsCompleted: 0,
      turnsFailed: 0,
      turnsInterrupted: 0,
      firstMs: ms,
      lastMs: ms,
    };
  });
  // `ccusage claude weekly -j -z ZONE -w DAY` (20.0.24) on the same requests: each week's first day and input tokens.
  const CCUSAGE: Record<string, Record<string, [string, number][]>> = {
    UTC: {
      sunday: [
        ['2026-03-01', 28],
        ['2026-03-08', 77],
      ],
      monday: [
        ['2026-02-23', 1],
        ['2026-03-02', 35],
        ['2026-03-09', 69],
      ],
      tuesday: [
        ['2026-02-24', 3],
        ['2026-03-03', 42],
        ['2026-03-10', 60],
      ],
      wednesday: [
        ['2026-02-25', 6],
        ['2026-03-04', 49],
        ['2026-03-11', 50],
      ],
      thursday: [
        ['2026-02-26', 10],
        ['2026-03-05', 56],
        ['2026-03-12', 39],
      ],
      friday: [
        ['2026-02-27', 15],
        ['2026-03-06', 63],
        ['2026-03-13', 27],
      ],
      saturday: [
        ['2026-02-28', 21],
        ['2026-03-07', 70],
        ['2026-03-14', 14],
      ],
    },
    'Asia/Kolkata': {
      sunday: [
        ['2026-03-01', 21],
        ['2026-03-08', 70],
        ['2026-03-15', 14],
      ],
      monday: [
        ['2026-03-02', 28],
        ['2026-03-09', 77],
      ],
      tuesday: [
        ['2026-02-24', 1],
        ['2026-03-03', 35],
        ['2026-03-10', 69],
      ],
      wednesday: [
        ['2026-02-25', 3],
        ['2026-03-04', 42],
        ['2026-03-11', 60],
      ],
      thursday: [
        ['2026-02-26', 6],
        ['2026-03-05', 49],
        ['2026-03-12', 50],
      ],
      friday: [
        ['2026-02-27', 10],
        ['2026-03-06', 56],
        ['2026-03-13', 39],
      ],
      saturday: [
        ['2026-02-28', 15],
        ['2026-03-07', 63],
        ['2026-03-14', 27],
      ],
    },
  };
  // Kiritimati (UTC+14) puts every request on the same day as Kolkata does.
  CCUSAGE['Pacific/Kiritimati'] = CCUSAGE['Asia/Kolkata']!;

  it.each(Object.keys(CCUSAGE))(
    "start on any of the seven days, named by their first day, as ccusage's in %s",
    (zone) => {
      for (const [day, weeks] of Object.entries(CCUSAGE[zone]!)) {
        const o = { timeZone: zone, startOfWeek: WEEKDAYS.indexOf(day as (typeof WEEKDAYS)[number]) };
        expect(
          periodRows(selectRows(rows, o), 'weekly', o).map((w) => [w.period, w.inputTokens]),
          day,
        ).toEqual(weeks);
      }
    },
  );

  it('reach back from the week of today with --last', () => {
    const wednesday = Date.parse('2026-03-11T12:00:00Z');
    expect(lastSince('weekly', 2, { timeZone: 'UTC', startOfWeek: 4 }, wednesday)).toBe('2026-02-26');
    expect(lastSince('weekly', 1, { timeZone: 'UTC', startOfWeek: 3 }, wednesday)).toBe('2026-03-11');
  });
});
