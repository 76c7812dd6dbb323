// One timer for what the exporter does on a clock: jobs out of step fall in step, so that an idle
// exporter wakes once a period, not once per job.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Clock, type ClockJob } from '../src/clock.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A job every `period` ms from `first`, which records when it ran and how late. */
function periodic(first: number, period: number, earlyMs: number) {
  let dueAt = first;
  const runs: { at: number; lateMs: number }[] = [];
  const job: ClockJob = {
    next: () => dueAt,
    earlyMs,
    run: (now, lateMs) => {
      runs.push({ at: now, lateMs });
      dueAt = now + period;
    },
  };
  return { job, runs, setDue: (at: number) => (dueAt = at) };
}

describe('the clock', () => {
  it('wakes once a period for two jobs of that period, once they fall in step', async () => {
    const start = Date.now();
    // Out of step by 7 s of 10: each may run 5 s early.
    const a = periodic(start + 10_000, 10_000, 5_000);
    const b = periodic(start + 17_000, 10_000, 5_000);
    const clock = new Clock([a.job, b.job]);
    let wakes = 0;
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) =>
      real(() => {
        wakes++;
        fn();
      }, ms)) as typeof setTimeout);
    clock.schedule();
    await vi.advanceTimersByTimeAsync(100_000);
    // At the first wake (10 s), b was due within 7 s: not yet. At b's (17 s), a was due within 3 s: both ran.
    expect(a.runs.map((r) => r.at - start).slice(0, 3)).toEqual([10_000, 17_000, 27_000]);
    expect(b.runs.map((r) => r.at - start).slice(0, 2)).toEqual([17_000, 27_000]);
    // 2 wakes to fall in step, then one each 10 s: 17, 27, …, 97.
    expect(wakes).toBe(10);
    clock.stop();
  });

  it('never runs a job sooner than it allows, and says how late a wake ran', async () => {
    const start = Date.now();
    const a = periodic(start + 1_000, 1_000, 0);
    const b = periodic(start + 1_500, 10_000, 0);
    const clock = new Clock([a.job, b.job]);
    clock.schedule();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(a.runs.map((r) => r.at - start)).toEqual([1_000, 2_000, 3_000]);
    expect(b.runs.map((r) => r.at - start)).toEqual([1_500]);
    expect(a.runs.every((r) => r.lateMs === 0)).toBe(true);
    clock.stop();
  });

  it('is set again when a job becomes due sooner, and not after it stopped', async () => {
    const start = Date.now();
    const a = periodic(start + 60_000, 60_000, 0);
    const clock = new Clock([a.job]);
    clock.schedule();
    a.setDue(start + 1_000);
    expect(clock.later(start + 1_000)).toBe(true);
    clock.schedule();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.runs).toHaveLength(1);
    clock.stop();
    expect(clock.later(start)).toBe(false);
    clock.schedule();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(a.runs).toHaveLength(1);
  });
});
