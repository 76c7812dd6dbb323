// The ledger: filled from the sink's events as the counters are (never from a muted replay), kept
// `ledger.days` days, per quarter hour so that a day is cut exactly in every time zone, and the
// spend per day the viewers chart.

import { appendFileSync, cpSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { ZERO_USAGE } from '../../src/session/types.js';
import { StateDb } from '../../src/state/db.js';
import { periodRows, selectRows, sessionReport } from '../../src/report/report.js';
import { quartersPerRow, spendByDay, zoneOffsets } from '../../src/store/ledger.js';
import { SessionStore } from '../../src/store/store.js';
import { sinkOf } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const DAY = 86_400_000;
const usage = { ...ZERO_USAGE, input: 100, output: 50, cacheRead: 1000, reasoning: 20 };

describe('ledger', () => {
  it('counts requests, sessions and turns as the counters do, and nothing of a muted replay', () => {
    const store = new SessionStore(new StateDb(':memory:'), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'codex',
      () => 's1',
      'codex',
      () => {},
    );
    const now = Date.now();
    ev.beginLine(false);
    ev.meta({ cwd: '/src/app', model: 'gpt-5' });
    ev.turnStarted(now);
    ev.usage('gpt-5', usage, 0, now, 0.5);
    ev.usage('gpt-5', usage, 0, now + 1000, 0.25);
    ev.turnEnded('completed', now + 2000);
    ev.beginLine(true); // a replay: already counted
    ev.usage('gpt-5', usage, 0, now + 3000, 1);
    store.commit();
    expect(store.ledgerRows(0, Number.MAX_SAFE_INTEGER)).toEqual([
      {
        hour: Math.floor(now / 3_600_000),
        quarter: Math.floor(now / 900_000) % 4,
        harness: 'codex',
        project: 'app',
        model: 'gpt-5',
        input: 200,
        output: 100,
        cacheRead: 2000,
        cacheWrite: 0,
        reasoning: 40,
        costUsd: 0.75,
        requests: 2,
        sessions: 1,
        turnsCompleted: 1,
        turnsFailed: 0,
        turnsInterrupted: 0,
        firstMs: now,
        lastMs: now + 1000,
      },
    ]);
  });

  it('keeps ledger.days days: an older request is not added, older rows are deleted', () => {
    const db = new StateDb(':memory:');
    const old = Date.now() - 10 * DAY;
    db.commit({
      files: [],
      removedFiles: [],
      sessions: [],
      counters: [],
      kv: [],
      seen: [],
      ledger: [
        {
          hour: Math.floor(old / 3_600_000),
          quarter: 0,
          harness: 'codex',
          project: 'app',
          model: 'm',
          input: 1,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          reasoning: 0,
          costUsd: 0,
          requests: 1,
          sessions: 0,
          turnsCompleted: 0,
          turnsFailed: 0,
          turnsInterrupted: 0,
          firstMs: old,
          lastMs: old,
        },
      ],
    });
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 }, undefined, 7);
    const ev = sinkOf(
      store,
      'codex',
      () => 's1',
      'codex',
      () => {},
    );
    ev.usage('m', usage, 0, Date.now() - 8 * DAY, 1);
    ev.usage('m', usage, 0, Date.now(), 1);
    store.commit();
    expect(store.ledgerRows(0, Number.MAX_SAFE_INTEGER).map((r) => r.firstMs! > Date.now() - DAY)).toEqual([true]);
  });

  it('gives the spend of every day of a range in a time zone, 0 where nothing was spent', () => {
    const db = new StateDb(':memory:');
    const row = (iso: string, costUsd: number) => ({
      hour: Date.parse(iso) / 3_600_000,
      quarter: 0,
      harness: 'codex',
      project: 'app',
      model: 'm',
      input: 1,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      costUsd,
      requests: 1,
      sessions: 0,
      turnsCompleted: 0,
      turnsFailed: 0,
      turnsInterrupted: 0,
      firstMs: Date.parse(iso),
      lastMs: Date.parse(iso),
    });
    db.commit({
      files: [],
      removedFiles: [],
      sessions: [],
      counters: [],
      kv: [],
      seen: [],
      ledger: [row('2026-03-01T23:00:00Z', 1), row('2026-03-02T01:00:00Z', 2), row('2026-03-05T12:00:00Z', 4)],
    });
    const ledger = (from: number, to: number) => db.ledger(from, to);
    expect(spendByDay(ledger, '2026-03-01', '2026-03-03', 'UTC')).toEqual([
      { date: '2026-03-01', costUsd: 1 },
      { date: '2026-03-02', costUsd: 2 },
      { date: '2026-03-03', costUsd: 0 },
    ]);
    // In Berlin (UTC+1 in March), 23:00 UTC is the next day.
    expect(spendByDay(ledger, '2026-03-01', '2026-03-02', 'Europe/Berlin')).toEqual([
      { date: '2026-03-01', costUsd: 0 },
      { date: '2026-03-02', costUsd: 3 },
    ]);
  });
});

describe('days in a time zone a half or three quarters of an hour off UTC', () => {
  // Requests through the real sink and ledger, then the daily report's requests per day.
  const daily = (times: string[], timeZone: string) => {
    const store = new SessionStore(
      new StateDb(':memory:'),
      createPriceTable(),
      { mode: 'name', aliases: {}, max: 50 },
      undefined,
      100_000,
    );
    const ev = sinkOf(
      store,
      'codex',
      () => 's1',
      'codex',
      () => {},
    );
    ev.beginLine(false);
    for (const t of times) ev.usage('gpt-5', usage, 0, Date.parse(t), 1);
    store.commit();
    return periodRows(selectRows(store.ledgerRows(0, Number.MAX_SAFE_INTEGER), { timeZone }), 'daily', {
      timeZone,
    }).map((d) => [d.period, d.requests]);
  };

  it.each([
    // Midnight at 18:30 UTC (+5:30).
    ['Asia/Kolkata', '2026-03-01T18:20:00Z', '2026-03-01T18:40:00Z', '2026-03-01'],
    // Midnight at 18:15 UTC (+5:45).
    ['Asia/Kathmandu', '2026-03-01T18:10:00Z', '2026-03-01T18:20:00Z', '2026-03-01'],
    // Daylight saving time (+10:30): midnight at 13:30 UTC.
    ['Australia/Adelaide', '2026-01-15T13:20:00Z', '2026-01-15T13:40:00Z', '2026-01-15'],
    // Standard time (+9:30): midnight at 14:30 UTC.
    ['Australia/Adelaide', '2026-07-15T14:20:00Z', '2026-07-15T14:40:00Z', '2026-07-15'],
  ])('are cut at midnight in %s: %s and %s fall on two days', (zone, before, after, day) => {
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    expect(daily([before, after], zone)).toEqual([
      [day, 1],
      [next, 1],
    ]);
  });

  it("sum as many quarters of an hour into a report's row as never straddle its midnight", () => {
    const year = [
      Date.parse('2026-01-01T00:00:00Z') / 3_600_000,
      Date.parse('2026-12-31T23:00:00Z') / 3_600_000,
    ] as const;
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/St_Johns',
      'Asia/Kolkata',
      'Australia/Adelaide',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Chatham',
    ];
    expect(zones.map((z) => quartersPerRow(z, ...year))).toEqual([4, 4, 2, 2, 2, 2, 1, 1]);
    // Lord Howe is +10:30 in its winter, +11 in its summer: a July alone is whole halves, a January whole hours.
    expect(
      quartersPerRow(
        'Australia/Lord_Howe',
        Date.parse('2026-07-01T00:00:00Z') / 3_600_000,
        Date.parse('2026-07-31T00:00:00Z') / 3_600_000,
      ),
    ).toBe(2);
    expect(
      quartersPerRow(
        'Australia/Lord_Howe',
        Date.parse('2026-01-01T00:00:00Z') / 3_600_000,
        Date.parse('2026-01-31T00:00:00Z') / 3_600_000,
      ),
    ).toBe(4);
  });

  it("know a zone's offsets over a span, each from the quarter hour it starts at (the report sums a day in the database)", () => {
    const q = (iso: string) => Date.parse(iso) / 900_000;
    const h = (iso: string) => Date.parse(iso) / 3_600_000;
    // Adelaide: +10:30 until 3:00 on 5 April 2026, +9:30 until 2:00 on 4 October.
    expect(zoneOffsets('Australia/Adelaide', h('2026-01-01T00:00:00Z'), h('2026-12-31T23:00:00Z'))).toEqual([
      { from: q('2026-01-01T00:00:00Z'), quarters: 42 },
      { from: q('2026-04-04T16:30:00Z'), quarters: 38 },
      { from: q('2026-10-03T16:30:00Z'), quarters: 42 },
    ]);
    expect(zoneOffsets('America/St_Johns', h('2026-01-01T00:00:00Z'), h('2026-01-31T00:00:00Z'))).toEqual([
      { from: q('2026-01-01T00:00:00Z'), quarters: -14 },
    ]);
    expect(zoneOffsets('UTC', h('2026-01-01T00:00:00Z'), h('2026-12-31T00:00:00Z'))).toEqual([
      { from: q('2026-01-01T00:00:00Z'), quarters: 0 },
    ]);
    // In 1850 Kolkata kept its local mean time, 5:53:28 off: not whole quarters, no sum by day.
    expect(zoneOffsets('Asia/Kolkata', h('1850-01-01T00:00:00Z'), h('1850-02-01T00:00:00Z'))).toBeUndefined();
  });

  it('are exact in every IANA zone: every offset from UTC is whole quarters of an hour, over the kept days and the year ahead', () => {
    const odd: string[] = [];
    for (const timeZone of Intl.supportedValuesOf('timeZone')) {
      const offset = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' });
      for (let t = Date.now() - 400 * DAY; t < Date.now() + 365 * DAY; t += 14 * DAY) {
        // GMT, GMT+05:30, GMT-09:30 (seconds too where there are any).
        const name = offset.formatToParts(t).find((p) => p.type === 'timeZoneName')!.value;
        const m = /^GMT(?:[+-](\d\d):(\d\d)(?::(\d\d))?)?$/.exec(name);
        if (!m || Number(m[2] ?? 0) % 15 !== 0 || Number(m[3] ?? 0) !== 0) odd.push(`${timeZone} ${name}`);
      }
    }
    expect(Intl.supportedValuesOf('timeZone').length).toBeGreaterThan(300);
    expect([...new Set(odd)]).toEqual([]);
  });
});

describe('a response streamed as several lines (Claude Code)', () => {
  // One response, its lines either side of midnight UTC, the last the largest (as Claude Code
  // writes a streamed answer): ccusage counts it once, at its kept line's time.
  const line = (ts: string, output: number) =>
    JSON.stringify({
      type: 'assistant',
      timestamp: ts,
      sessionId: 'cc1',
      cwd: '/src/app',
      uuid: `u-${ts}`,
      message: {
        id: 'msg_1',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'x' }],
        usage: {
          input_tokens: 10,
          output_tokens: output,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 0,
        },
      },
    });
  const home = (lines: string[]) => {
    const dir = tempDir();
    const folder = join(dir, '.claude/projects/-src-app');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'cc1.jsonl'), `${lines.join('\n')}\n`);
    return dir;
  };
  const read = async (dir: string) => {
    const config = loadConfig(['--state-dir', tempDir()], {
      HOME: dir,
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
    });
    const agent = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await agent.scanAll();
    const rows = agent.store.ledgerRows(0, Number.MAX_SAFE_INTEGER).filter((r) => r.requests !== 0 || r.output !== 0);
    await agent.stop();
    return rows.map((r) => ({
      day: new Date(r.hour * 3_600_000).toISOString().slice(0, 10),
      input: r.input,
      output: r.output,
      requests: r.requests,
      sessions: r.sessions,
    }));
  };

  it('is one request of the day and hour of its last line, in one read', async () => {
    const rows = await read(home([line('2026-03-01T23:59:59.500Z', 1), line('2026-03-02T00:00:01.000Z', 500)]));
    expect(rows).toEqual([{ day: '2026-03-02', input: 10, output: 500, requests: 1, sessions: 1 }]);
  });

  it('is moved to the day of its last line when that line comes in a later read', async () => {
    const dir = home([line('2026-03-01T23:59:59.500Z', 1)]);
    const state = tempDir();
    const config = loadConfig(['--state-dir', state], { HOME: dir, CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false' });
    const first = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await first.scanAll();
    await first.stop();
    appendFileSync(join(dir, '.claude/projects/-src-app/cc1.jsonl'), `${line('2026-03-02T00:00:01.000Z', 500)}\n`);
    const second = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await second.scanAll();
    // The hour it left holds nothing now: a report lists no day for it.
    const rows = selectRows(second.store.ledgerRows(0, Number.MAX_SAFE_INTEGER), { timeZone: 'UTC' });
    await second.stop();
    expect(rows.map((r) => [r.day, r.output, r.requests, r.sessions])).toEqual([['2026-03-02', 500, 1, 1]]);
  });

  it('is moved to the quarter hour of its last line: a day cut at half past in Kolkata', async () => {
    const dir = home([line('2026-03-01T18:29:59.500Z', 1)]);
    const state = tempDir();
    const config = loadConfig(['--state-dir', state, '--ledger.days', '100000'], {
      HOME: dir,
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
    });
    const first = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await first.scanAll();
    await first.stop();
    appendFileSync(join(dir, '.claude/projects/-src-app/cc1.jsonl'), `${line('2026-03-01T18:30:01.000Z', 500)}\n`);
    const second = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await second.scanAll();
    const rows = selectRows(second.store.ledgerRows(0, Number.MAX_SAFE_INTEGER), { timeZone: 'Asia/Kolkata' });
    await second.stop();
    expect(rows.map((r) => [r.day, r.output, r.requests, r.sessions])).toEqual([['2026-03-02', 500, 1, 1]]);
  });

  it('counts lines repeating a response as one request', async () => {
    const rows = await read(
      home([
        line('2026-03-02T10:00:00.000Z', 1),
        line('2026-03-02T10:00:01.000Z', 1),
        line('2026-03-02T10:00:02.000Z', 500),
      ]),
    );
    expect(rows).toEqual([{ day: '2026-03-02', input: 10, output: 500, requests: 1, sessions: 1 }]);
  });
});

describe("Droid's usage (its settings document has no times of its own)", () => {
  it('is dated when the document was written, not when it is read', async () => {
    const dir = tempDir();
    cpSync(join(FIXTURES, 'captures/droid-anthropic/text'), dir, { recursive: true });
    const written = Date.parse('2026-03-01T10:30:00Z');
    const folder = join(dir, '.factory/sessions/-home-dev-src-demo-app');
    for (const f of readdirSync(folder).filter((n) => n.endsWith('.settings.json')))
      utimesSync(join(folder, f), written / 1000, written / 1000);
    const config = loadConfig(['--state-dir', tempDir()], {
      HOME: dir,
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
    });
    const agent = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await agent.scanAll();
    const rows = selectRows(agent.store.ledgerRows(0, Number.MAX_SAFE_INTEGER), {
      timeZone: 'UTC',
      harness: 'droid',
    }).filter((r) => r.requests > 0);
    await agent.stop();
    expect(rows.map((r) => [r.day, r.input, r.output])).toEqual([['2026-03-01', 1234, 56]]);
  });
});

describe('a session row of report session', () => {
  it('splits the session by every model it used, with its requests, turns, folder and first and last request', async () => {
    const rec = (ts: string, id: string, model: string, output: number) =>
      JSON.stringify({
        type: 'assistant',
        timestamp: ts,
        sessionId: 'cc2',
        cwd: '/src/app',
        uuid: `u-${ts}`,
        message: {
          id,
          role: 'assistant',
          model,
          content: [{ type: 'text', text: 'x' }],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 10,
            output_tokens: output,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        },
      });
    const prompt = (ts: string) =>
      JSON.stringify({
        type: 'user',
        timestamp: ts,
        sessionId: 'cc2',
        cwd: '/src/app',
        uuid: `p-${ts}`,
        message: { role: 'user', content: 'hi' },
      });
    const dir = tempDir();
    const folder = join(dir, '.claude/projects/-src-app');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'cc2.jsonl'),
      `${[
        prompt('2026-03-02T09:59:00.000Z'),
        rec('2026-03-02T10:00:00.000Z', 'msg_a', 'claude-sonnet-4-5', 1),
        rec('2026-03-02T10:00:01.000Z', 'msg_a', 'claude-sonnet-4-5', 20),
        prompt('2026-03-02T10:05:00.000Z'),
        rec('2026-03-02T10:06:00.000Z', 'msg_b', 'claude-opus-4-1', 30),
      ].join('\n')}\n`,
    );
    const config = loadConfig(['--state-dir', tempDir()], {
      HOME: dir,
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
    });
    const agent = new Exporter(config, createLogger('error'), { env: { HOME: dir }, home: dir });
    await agent.scanAll();
    const [row] = sessionReport([...agent.store.sessions.values()], { timeZone: 'UTC' });
    await agent.stop();
    expect(row).toMatchObject({
      sessionId: 'cc2',
      projectPath: '/src/app',
      project: 'app',
      requests: 2,
      outputTokens: 50,
      firstActivity: '2026-03-02T10:00:01.000Z',
      lastActivity: '2026-03-02T10:06:00.000Z',
      modelsUsed: ['claude-opus-4-1', 'claude-sonnet-4-5'],
    });
    expect(row!.turns.completed).toBeGreaterThan(0);
    expect(row!.modelBreakdowns.map((m) => [m.modelName, m.outputTokens, m.requests])).toEqual([
      ['claude-opus-4-1', 30, 1],
      ['claude-sonnet-4-5', 20, 1],
    ]);
  });
});
