// Spend today and this week: by the time of each request, kept across a restart, a week long.

import { describe, expect, it } from 'vitest';
import { createPriceTable } from '../../src/pricing/prices.js';
import { SessionStore } from '../../src/session/store.js';
import { StateDb } from '../../src/state/db.js';
import { summaryOf } from '../../src/view/summary.js';
import { tempDir } from '../helpers/run.js';

const DAY = 86_400_000;
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
const open = (dir: string) => new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });

describe('spend by day', () => {
  it('counts each request on its own day, survives a restart, and forgets days older than a week', () => {
    const now = Date.now();
    const dir = tempDir();
    const store = open(dir);
    const ev = store.events('claude-code', () => 's1', 'claude-code', () => {});
    ev.meta({ cwd: '/home/dev/src/webshop' });
    ev.usage('m', usage, 0, now, 1.25);
    ev.usage('m', usage, 0, now, 0.5);
    ev.usage('m', usage, 0, now - 2 * DAY, 4);
    ev.usage('m', usage, 0, now - 10 * DAY, 100); // history older than a week: in the counter only
    store.events('codex', () => 't1', 'codex', () => {}).usage('gpt-5', usage, 0, now, 2);
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
    const ev = store.events('claude-code', () => 's1', 'claude-code', () => {});
    for (let d = 6; d >= 0; d--) ev.usage('m', usage, 0, now - d * DAY, 1);
    expect(store.spendByDay.size).toBe(7);
    expect(summaryOf(store, [], now).spend_week_usd).toBeCloseTo(7, 9);
  });
});
