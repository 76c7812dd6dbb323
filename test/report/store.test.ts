// A team's report from its store: a day's bounds in any zone, and what a counter grew by between
// two bounds, resets and gaps included (the store's end to end: test/deploy/team-e2e.test.ts).

import { describe, expect, it } from 'vitest';
import { dayAt, dayStart, daysFrom, growth, storeRows } from '../../src/report/store.js';

describe('a day of a store', () => {
  it('starts at midnight in every zone: half and quarter hours, summer time, a midnight that does not exist, a day skipped', () => {
    expect(new Date(dayStart('2026-03-01', 'UTC')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(new Date(dayStart('2026-03-01', 'Asia/Kolkata')).toISOString()).toBe('2026-02-28T18:30:00.000Z');
    expect(new Date(dayStart('2026-03-01', 'Asia/Kathmandu')).toISOString()).toBe('2026-02-28T18:15:00.000Z');
    // Adelaide in summer time (+10:30), then in winter (+9:30).
    expect(new Date(dayStart('2026-01-15', 'Australia/Adelaide')).toISOString()).toBe('2026-01-14T13:30:00.000Z');
    expect(new Date(dayStart('2026-07-15', 'Australia/Adelaide')).toISOString()).toBe('2026-07-14T14:30:00.000Z');
    // New York's spring day is 23 hours long, its autumn day 25.
    expect(dayStart('2026-03-09', 'America/New_York') - dayStart('2026-03-08', 'America/New_York')).toBe(
      23 * 3_600_000,
    );
    expect(dayStart('2026-11-02', 'America/New_York') - dayStart('2026-11-01', 'America/New_York')).toBe(
      25 * 3_600_000,
    );
    // Santiago's clocks go from 23:59:59 to 01:00 on 2026-09-06: the day starts at 01:00 local.
    expect(new Date(dayStart('2026-09-06', 'America/Santiago')).toISOString()).toBe('2026-09-06T04:00:00.000Z');
    // Samoa skipped 2011-12-30: it has no length.
    expect(dayStart('2011-12-30', 'Pacific/Apia')).toBe(dayStart('2011-12-31', 'Pacific/Apia'));
    for (const zone of ['Asia/Kolkata', 'Australia/Adelaide', 'America/St_Johns', 'Pacific/Chatham']) {
      const t = dayStart('2026-04-05', zone);
      expect([dayAt(t - 1, zone), dayAt(t, zone)], zone).toEqual(['2026-04-04', '2026-04-05']);
    }
    expect(daysFrom('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('grows by the difference at its bounds, a drop being a reset, no sample no growth, a new series from 0', () => {
    expect(growth([10, 15, 15, 40])).toEqual([5, 0, 25]);
    // Reset to 0 by --reset-state and grown to 7 by the end of the day: 7.
    expect(growth([100, 120, 7, 9])).toEqual([20, 7, 2]);
    // A day with a reset inside it, read sample by sample: 10 before the reset, 3 and 5 after.
    expect(growth([150, 8, 9], [[160, 3, 8]])).toEqual([18, 1]);
    expect(growth([150, 8], [])).toEqual([8]);
    // An exporter asleep for a day is not counted again when it wakes.
    expect(growth([100, undefined, 130])).toEqual([0, 30]);
    // No sample before the first day: the series began with that day's first increment.
    expect(growth([undefined, 12, 20])).toEqual([12, 8]);
  });

  it('puts token types, reasoning and cost of one set of labels in one row a day, every label kept', () => {
    const labels = { harness: 'codex', project: 'p', model: 'gpt-5', user: 'alice', instance: 'a1' };
    const rows = storeRows(
      [
        { counter: 'coding_agent_tokens_total', labels: { ...labels, token_type: 'input' }, values: [100, 150, 150] },
        { counter: 'coding_agent_tokens_total', labels: { ...labels, token_type: 'cache_write' }, values: [0, 0, 4] },
        { counter: 'coding_agent_tokens_total', labels: { ...labels, token_type: 'future_type' }, values: [0, 5, 9] },
        { counter: 'coding_agent_reasoning_tokens_total', labels, values: [undefined, 3, 3] },
        { counter: 'coding_agent_cost_usd_total', labels: { ...labels, user: 'bob' }, values: [1, 1.5, 1.5] },
      ],
      ['2026-03-01', '2026-03-02'],
    );
    expect(rows.map((r) => [r.day, r.labels.user, r.input, r.cacheWrite, r.reasoning, r.costUsd])).toEqual([
      ['2026-03-01', 'alice', 50, 0, 3, 0],
      ['2026-03-02', 'alice', 0, 4, 0, 0],
      ['2026-03-01', 'bob', 0, 0, 0, 0.5],
    ]);
    expect(rows[0]).toMatchObject({ harness: 'codex', project: 'p', model: 'gpt-5', labels });
  });
});
