// When a collector reads after its first scan: as watching sees its files change (a folder not
// there yet waited for in its parent, a burst read once), and at the rescan, which catches what
// watching misses and backs off while it misses nothing: an exporter with nothing to do does not
// list and stat every file every 30 s.

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { nextRescanMs, RescanPlan, WatchPlan, type Rescanned } from '../../src/collectors/schedule.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { tempDir, until } from '../helpers/run.js';

describe('the wait before the next rescan', () => {
  it('doubles after each rescan that found nothing new while watching works, up to ten times rescanSeconds; anything found brings it back', () => {
    const waits = [30_000];
    for (let i = 0; i < 5; i++) waits.push(nextRescanMs(waits.at(-1)!, 30_000, true));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    // A file read, come or gone, a collector failing or a watch error since: back to rescanSeconds.
    expect(nextRescanMs(300_000, 30_000, false)).toBe(30_000);
  });
});

/** A collector as the rescan sees it. */
const collector = (
  searches = false,
): Rescanned & { stats: { success: boolean; readBytes: number; files: number } } => ({
  searches,
  stats: { success: true, readBytes: 0, files: 1 },
});

describe('the rescan plan', () => {
  const period = 30_000;

  it('backs a watched collector off while its rescans find nothing, and brings it back on a read, a failure or a watch error', () => {
    const watched = collector();
    const plan = new RescanPlan([watched], period);
    const all = new Set([watched]);
    plan.start(all, 0);
    // Each round at the period the timer runs; which were due, by the round's time.
    const dueAt: number[] = [];
    let now = 0;
    const round = (change?: () => void, watchFailed = false) => {
      now += period;
      const r = plan.begin(now, watchFailed);
      if (r.due.length > 0) dueAt.push(now / period);
      change?.();
      plan.end(r, all, false);
    };
    for (let i = 0; i < 8; i++) round();
    // After waits of 2 and 4 periods, the next is of 8.
    expect(dueAt).toEqual([1, 3, 7]);
    // At 15, the rescan reads something: the next is a period later.
    for (let i = 0; i < 7; i++) round(() => (watched.stats.readBytes += now === 15 * period ? 10 : 0));
    expect(dueAt).toEqual([1, 3, 7, 15]);
    round();
    expect(dueAt).toEqual([1, 3, 7, 15, 16]);
    // A failing scan, a watch error: back to every period too.
    const failing = collector();
    const p2 = new RescanPlan([failing], period);
    const r1 = p2.begin(0, false);
    failing.stats.success = false;
    p2.end(r1, new Set([failing]), false);
    expect(p2.begin(period, false).due).toEqual([failing]);
    failing.stats.success = true;
    const r2 = p2.begin(period, true);
    p2.end(r2, new Set([failing]), false);
    expect(p2.begin(2 * period, false).due).toEqual([failing]);
  });

  it('rescans an unwatched collector every period, and a watched search at the longest wait from the first scan on', () => {
    const unwatched = collector();
    const search = collector(true);
    const plan = new RescanPlan([unwatched, search], period);
    plan.start(new Set([search]), 0);
    const due: string[][] = [];
    for (let now = period; now <= 11 * period; now += period) {
      const r = plan.begin(now, false);
      due.push(r.due.map((c) => (c === search ? 'search' : 'files')));
      plan.end(r, new Set([search]), false);
    }
    expect(due.filter((d) => d.includes('files'))).toHaveLength(11);
    expect(due.findIndex((d) => d.includes('search'))).toBe(9);
  });
});

describe('the watch plan', () => {
  const quiet = createLogger('error');

  it("waits for a folder not there yet in its parent, reads what it holds once it appears, and tells the exporter's own files apart", async () => {
    const root = tempDir();
    const state = tempDir();
    const db = new StateDb(tempDir());
    const c = new Collector(
      'claude-code',
      claudeCode,
      [root],
      new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 }),
      db,
      quiet,
    );
    const reads: string[] = [];
    let own = 0;
    const spool = join(state, 'hooks.jsonl');
    const plan = new WatchPlan([c], {
      read: (x) => reads.push(x.name),
      changed: () => {},
      own: new Map([[spool, () => own++]]),
      searchesWatched: false,
      failed: (e) => {
        throw e;
      },
    });
    try {
      expect(plan.watched).toEqual(new Set([c]));
      // `projects` does not exist yet: made with a session in it, it is watched and read.
      mkdirSync(join(root, 'projects', '-src-app'), { recursive: true });
      writeFileSync(join(root, 'projects', '-src-app', 's1.jsonl'), '{}\n');
      await until(async () => (reads.length > 0 ? true : undefined), 5000, 'a read of the folder that appeared');
      // A line appended to a session file: read again, once for the burst.
      const before = reads.length;
      for (let i = 0; i < 5; i++) appendFileSync(join(root, 'projects', '-src-app', 's1.jsonl'), '{}\n');
      await until(async () => (reads.length > before ? true : undefined), 5000, 'a read of the appended lines');
      appendFileSync(spool, 'x\n');
      await until(async () => (own > 0 ? true : undefined), 5000, "the spool's change");
      expect(plan.takeFailed()).toBe(false);
    } finally {
      plan.close();
      db.close();
    }
  });
});
