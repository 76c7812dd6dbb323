// Spend today and this week: by the time of each request, kept across a restart, a week long.
// Sessions by status: what the coding_agent_sessions gauge counts.

import { describe, expect, it, onTestFinished } from 'vitest';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { liveSessions } from '../../src/store/live.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { ProcessMonitor } from '../../src/process/monitor.js';
import { procTable } from '../../src/process/table.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { summaryOf } from '../../src/view/summary.js';
import { sinkOf } from '../helpers/events.js';
import { BOOT_SECONDS, fakeProc } from '../helpers/fake-proc.js';
import { tempDir } from '../helpers/run.js';

const DAY = 86_400_000;
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
const open = (dir: string) =>
  new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });

describe('spend by day', () => {
  it('counts each request on its own day, survives a restart, and forgets days older than a week', () => {
    const now = Date.now();
    const dir = tempDir();
    const store = open(dir);
    const ev = sinkOf(
      store,
      'claude-code',
      () => 's1',
      'claude-code',
      () => {},
    );
    ev.meta({ cwd: '/home/dev/src/webshop' });
    ev.usage('m', usage, 0, now, 1.25);
    ev.usage('m', usage, 0, now, 0.5);
    ev.usage('m', usage, 0, now - 2 * DAY, 4);
    ev.usage('m', usage, 0, now - 10 * DAY, 100); // history older than a week: in the counter only
    sinkOf(
      store,
      'codex',
      () => 't1',
      'codex',
      () => {},
    ).usage('gpt-5', usage, 0, now, 2);
    store.commit();

    const again = open(dir);
    const s = summaryOf(again, [], now);
    expect(s.spend_today_usd).toBeCloseTo(3.75, 9);
    expect(s.spend_week_usd).toBeCloseTo(7.75, 9);
    expect(s.spend_today).toEqual([
      { harness: 'codex', project: 'unknown', usd: 2 },
      { harness: 'claude-code', project: 'webshop', usd: 1.75 },
    ]);
    const cost = [...again.counters.values()].filter((c) => c.metric === 'cost').reduce((a, c) => a + c.value, 0);
    expect(cost).toBeCloseTo(107.75, 9);
  });

  it('keeps seven days at most', () => {
    const now = Date.now();
    const store = open(tempDir());
    const ev = sinkOf(
      store,
      'claude-code',
      () => 's1',
      'claude-code',
      () => {},
    );
    for (let d = 6; d >= 0; d--) ev.usage('m', usage, 0, now - d * DAY, 1);
    expect(store.spend.days.size).toBe(7);
    expect(summaryOf(store, [], now).spend_week_usd).toBeCloseTo(7, 9);
  });
});

describe('sessions by status', () => {
  it('counts what coding_agent_sessions counts, an agent no session file names among them', () => {
    const now = BOOT_SECONDS * 1000 + 70_000;
    const store = open(tempDir());
    const proc = fakeProc();
    proc.add(500, { argv: ['/home/u/.local/bin/cursor-agent'], cwd: '/src/web' });
    new ProcessMonitor(procTable(proc.root), store, {}, createLogger('error')).scan(now);
    expect(store.processes.unowned).toHaveLength(1);

    const opts = {
      status: { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 },
      activeWindowMs: 86_400_000,
      perSessionMax: 50,
      version: 'x',
    };
    const gauge: Record<string, number> = {};
    for (const p of snapshot(store, new Map(), opts, now).find((f) => f.def.name === 'coding_agent_sessions')!.points) {
      gauge[p.labels.status!] = (gauge[p.labels.status!] ?? 0) + p.value;
    }
    const { sessions_by_status } = summaryOf(store, liveSessions(store, now, opts), now);
    expect(sessions_by_status).toEqual(gauge);
    expect(sessions_by_status.idle).toBe(1);
  });
});

describe('usage limits', () => {
  it('lists every window by harness then window, its reset as a time, and leaves out one past its reset', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const store = open(tempDir());
    store.setUsageLimit({ harness: 'codex', window: '7d', usedRatio: 0.2, resetsAt: now / 1000 + 3 * 86_400 });
    store.setUsageLimit({ harness: 'claude-code', window: '7d', usedRatio: 0.31, resetsAt: now / 1000 + 86_400 });
    store.setUsageLimit({ harness: 'claude-code', window: '5h', usedRatio: 0.47, resetsAt: now / 1000 + 2 * 3600 });
    store.setUsageLimit({ harness: 'codex', window: '5h', usedRatio: 0.9, resetsAt: now / 1000 - 60 }); // started over a minute ago
    store.setUsageLimit({ harness: 'copilot-cli', window: 'premium_interactions', usedRatio: 0.5 }); // no reset time reported
    expect(summaryOf(store, [], now).limits).toEqual([
      { harness: 'claude-code', window: '5h', used_ratio: 0.47, resets_at: '2026-12-01T14:00:00.000Z' },
      { harness: 'claude-code', window: '7d', used_ratio: 0.31, resets_at: '2026-12-02T12:00:00.000Z' },
      { harness: 'codex', window: '7d', used_ratio: 0.2, resets_at: '2026-12-04T12:00:00.000Z' },
      { harness: 'copilot-cli', window: 'premium_interactions', used_ratio: 0.5, resets_at: null },
    ]);
    expect(summaryOf(open(tempDir()), [], now).limits).toEqual([]);
  });
});

describe("the last 30 days' spend", () => {
  it('is every one of the last 30 local days from the history handed in, oldest first, a day without spend 0', () => {
    // Past midnight in a zone whose clocks went forward two days before: 24-hour steps back would skip a day.
    const tz = process.env.TZ;
    process.env.TZ = 'Europe/Berlin';
    onTestFinished(() => void (tz === undefined ? delete process.env.TZ : (process.env.TZ = tz)));
    const now = new Date(2026, 2, 31, 0, 30).getTime();
    const asked: string[][] = [];
    const history = (first: string, last: string) => (
      asked.push([first, last]),
      [
        { date: '2026-03-31', costUsd: 2 },
        { date: '2026-03-31', costUsd: 0.5 }, // a second row of the same day (another harness)
        { date: '2026-03-10', costUsd: 4 },
        { date: '2026-03-02', costUsd: 1 },
      ]
    );
    const days = summaryOf(open(tempDir()), [], now, history).spend_30d;
    expect(asked).toEqual([['2026-03-02', '2026-03-31']]);
    expect(days).toHaveLength(30);
    expect(new Set(days.map((d) => d.date)).size).toBe(30);
    expect(days[0]).toEqual({ date: '2026-03-02', cost_usd: 1 });
    expect(days[8]).toEqual({ date: '2026-03-10', cost_usd: 4 });
    expect(days[29]).toEqual({ date: '2026-03-31', cost_usd: 2.5 });
    expect(days.reduce((a, d) => a + d.cost_usd, 0)).toBe(7.5);
  });

  it('is empty where no history is kept', () => {
    expect(summaryOf(open(tempDir()), [], Date.now()).spend_30d).toEqual([]);
  });
});
