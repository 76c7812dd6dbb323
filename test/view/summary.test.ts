// Spend today and this week: by the time of each request, kept across a restart, a week long.
// Sessions by status: what the coding_agent_sessions gauge counts.

import { describe, expect, it } from 'vitest';
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
const open = (dir: string) => new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });

describe('spend by day', () => {
  it('counts each request on its own day, survives a restart, and forgets days older than a week', () => {
    const now = Date.now();
    const dir = tempDir();
    const store = open(dir);
    const ev = sinkOf(store, 'claude-code', () => 's1', 'claude-code', () => {});
    ev.meta({ cwd: '/home/dev/src/webshop' });
    ev.usage('m', usage, 0, now, 1.25);
    ev.usage('m', usage, 0, now, 0.5);
    ev.usage('m', usage, 0, now - 2 * DAY, 4);
    ev.usage('m', usage, 0, now - 10 * DAY, 100); // history older than a week: in the counter only
    sinkOf(store, 'codex', () => 't1', 'codex', () => {}).usage('gpt-5', usage, 0, now, 2);
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
    const ev = sinkOf(store, 'claude-code', () => 's1', 'claude-code', () => {});
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

    const opts = { status: { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 }, activeWindowMs: 86_400_000, perSessionMax: 50, version: 'x' };
    const gauge: Record<string, number> = {};
    for (const p of snapshot(store, new Map(), opts, now).find((f) => f.def.name === 'coding_agent_sessions')!.points) {
      gauge[p.labels.status!] = (gauge[p.labels.status!] ?? 0) + p.value;
    }
    const { sessions_by_status } = summaryOf(store, liveSessions(store, now, opts), now);
    expect(sessions_by_status).toEqual(gauge);
    expect(sessions_by_status.idle).toBe(1);
  });
});
