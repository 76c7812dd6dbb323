// The 5-hour blocks: the same blocks, burn rate and projection as ccusage's algorithm (ported
// below from its identifySessionBlocks, calculateBurnRate and projectBlockUsage) on a small
// generated history with a known answer, read in any order, kept across a restart.

import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { projection, UsageBlocks } from '../../src/store/blocks.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { ZERO_USAGE } from '../../src/session/types.js';
import { tempDir } from '../helpers/run.js';
import { sinkOf } from '../helpers/events.js';

interface Entry {
  ts: number;
  tokens: number;
  cost: number;
}

/** ccusage's blocks (src/_session-blocks.ts): the active block's totals, burn rate and projected cost. */
function ccusageActiveBlock(entries: Entry[], now: number) {
  const SESSION = 5 * 3_600_000;
  const floorToHour = (t: number) => {
    const d = new Date(t);
    d.setUTCMinutes(0, 0, 0);
    return d.getTime();
  };
  const sorted = [...entries].sort((a, b) => a.ts - b.ts);
  const blocks: { start: number; entries: Entry[] }[] = [];
  for (const e of sorted) {
    const cur = blocks.at(-1);
    if (!cur || e.ts - cur.start > SESSION || e.ts - cur.entries.at(-1)!.ts > SESSION)
      blocks.push({ start: floorToHour(e.ts), entries: [e] });
    else cur.entries.push(e);
  }
  const last = blocks.at(-1);
  if (!last) return undefined;
  const end = last.start + SESSION;
  const actualEnd = last.entries.at(-1)!.ts;
  if (!(now - actualEnd < SESSION && now < end)) return undefined;
  const tokens = last.entries.reduce((n, e) => n + e.tokens, 0);
  const cost = last.entries.reduce((n, e) => n + e.cost, 0);
  const minutes = (actualEnd - last.entries[0]!.ts) / 60_000;
  const burn = minutes > 0 ? { tokensPerMinute: tokens / minutes, costPerHour: (cost / minutes) * 60 } : undefined;
  const remaining = Math.max(0, (end - now) / 60_000);
  return {
    start: last.start,
    end,
    tokens,
    cost,
    burn,
    projectedCost: burn ? cost + (burn.costPerHour / 60) * remaining : undefined,
  };
}

// A day whose 12:30 is within half an hour of now: the store keeps requests by the clock.
const BASE = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 12 * 3_600_000;
const at = (hhmmss: string) => BASE + Date.parse(`1970-01-01T${hhmmss}Z`);
const NOW = at('12:30:00');
// claude-code: a block 03:00–08:00, then one from 08:00 (its first request 5 h 10 min after the
// block's start) with 900 tokens and $9 over 110 minutes. codex: a gap of 5 h 15 min starts a block
// at 09:00 with a single request (no burn rate). pi: its block ended at 10:00.
const HISTORY: Record<string, Entry[]> = {
  'claude-code': [
    { ts: at('03:20:00'), tokens: 100, cost: 1 },
    { ts: at('07:50:00'), tokens: 100, cost: 1 },
    { ts: at('08:10:00'), tokens: 200, cost: 2 },
    { ts: at('09:00:30'), tokens: 100, cost: 1 },
    { ts: at('09:00:45'), tokens: 200, cost: 2 },
    { ts: at('10:00:00'), tokens: 400, cost: 4 },
  ],
  codex: [
    { ts: at('02:30:00'), tokens: 10, cost: 1 },
    { ts: at('04:00:00'), tokens: 10, cost: 1 },
    { ts: at('09:15:00'), tokens: 50, cost: 5 },
  ],
  pi: [{ ts: at('05:00:00'), tokens: 70, cost: 7 }],
};

describe('5-hour usage blocks', () => {
  it('are the blocks ccusage computes, whatever order the requests are read in', () => {
    expect(ccusageActiveBlock(HISTORY['claude-code']!, NOW)).toEqual({
      start: at('08:00:00'),
      end: at('13:00:00'),
      tokens: 900,
      cost: 9,
      burn: { tokensPerMinute: 900 / 110, costPerHour: (9 / 110) * 60 },
      projectedCost: 9 + (9 / 110) * 30,
    });
    for (const [harness, entries] of Object.entries(HISTORY)) {
      for (const order of [
        entries,
        [...entries].reverse(),
        [entries[2], entries[0], ...entries.slice(3), entries[1]].filter((e) => e),
      ]) {
        const blocks = new UsageBlocks();
        for (const e of order) blocks.add(harness, e!.ts, e!.tokens, e!.cost, NOW);
        const want = ccusageActiveBlock(entries, NOW);
        const got = blocks.current(harness, NOW);
        expect(got && { start: got.startMs, end: got.endMs, tokens: got.tokens, cost: got.costUsd }).toEqual(
          want && { start: want.start, end: want.end, tokens: want.tokens, cost: want.cost },
        );
        const p = got && projection(got, NOW);
        expect(p?.tokensPerMinute).toBe(want?.burn?.tokensPerMinute);
        if (want?.projectedCost === undefined) expect(p).toBeUndefined();
        else expect(p!.projectedCostUsd).toBeCloseTo(want.projectedCost);
      }
    }
    expect(ccusageActiveBlock(HISTORY.codex!, NOW)).toMatchObject({
      start: at('09:00:00'),
      tokens: 50,
      burn: undefined,
    });
    expect(ccusageActiveBlock(HISTORY.pi!, NOW)).toBeUndefined();
  });

  it('keeps only the last 10 hours of requests, per minute', () => {
    const blocks = new UsageBlocks();
    blocks.add('codex', at('02:29:00'), 1000, 100, NOW); // more than 10 h before now: not needed
    for (const e of HISTORY.codex!) blocks.add('codex', e.ts, e.tokens, e.cost, NOW);
    expect(blocks.current('codex', NOW)).toMatchObject({ tokens: 50, costUsd: 5 });
    const [row] = blocks.changes(NOW);
    expect(JSON.parse(row!.value)).toHaveLength(3);
    // Two hours later, the requests of 02:30 are dropped from what is written.
    expect(JSON.parse(blocks.changes(NOW + 2 * 3_600_000)[0]!.value)).toHaveLength(1);
  });

  it('are exported per harness from the requests the sink counts, and kept across a restart', () => {
    const dir = tempDir();
    const open = () => new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const store = open();
    for (const [harness, entries] of Object.entries(HISTORY)) {
      const ev = sinkOf(
        store,
        harness as 'pi',
        () => 's1',
        harness,
        () => {},
      );
      ev.meta({ cwd: '/work/p' });
      for (const e of entries) {
        // Only Date.now() says which requests are old enough to drop: these are all recent.
        ev.usage('some-unpriced-model', { ...ZERO_USAGE, input: e.tokens }, 0, e.ts, e.cost);
      }
    }
    store.commit();
    const points = (s: SessionStore, key: keyof typeof catalog) =>
      snapshot(
        s,
        new Map(),
        {
          perSessionMax: 0,
          version: 't',
          activeWindowMs: 86_400_000,
          status: { doneForMs: 1_800_000, staleAfterMs: 7_200_000 },
        },
        NOW,
      )
        .find((f) => f.def === catalog[key])
        ?.points.map((p) => [p.labels.harness, p.value]);
    for (const s of [store, open()]) {
      expect(points(s, 'blockTokens')).toEqual([
        ['claude-code', 900],
        ['codex', 50],
        ['pi', 0],
      ]);
      expect(points(s, 'blockCost')).toEqual([
        ['claude-code', 9],
        ['codex', 5],
        ['pi', 0],
      ]);
      expect(points(s, 'blockEnd')).toEqual([
        ['claude-code', at('13:00:00') / 1000],
        ['codex', at('14:00:00') / 1000],
      ]);
      expect(points(s, 'blockBurnRate')).toEqual([['claude-code', 900 / 110]]);
      expect(points(s, 'blockProjectedCost')?.[0]?.[1]).toBeCloseTo(9 + (9 / 110) * 30);
    }
  });

  it('count a response streamed across an hour once, at the time of its last record', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'claude-code',
      () => 's1',
      'claude-code',
      () => {},
    );
    ev.meta({ cwd: '/work/p' });
    // Half a second before the hour, then a second after it: one request, of the new hour.
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const first = { ...ZERO_USAGE, input: 10, output: 1 };
    ev.usage('m', first, 0, hour - 500);
    ev.usage('m', { ...ZERO_USAGE, output: 499 }, 0, hour + 1000, undefined, undefined, {
      at: hour - 500,
      usage: first,
    });
    const block = store.blocks.current('claude-code', hour + 2000);
    expect(block && [block.startMs, block.firstMs, block.tokens]).toEqual([hour, hour + 1000, 510]);
  });

  it('give a burn rate only once the requests span a minute', () => {
    const block = (spanMs: number) => ({
      startMs: 0,
      endMs: 5 * 3_600_000,
      firstMs: 1000,
      lastMs: 1000 + spanMs,
      tokens: 6000,
      costUsd: 1,
    });
    expect(projection(block(5), 2000)).toBeUndefined();
    expect(projection(block(59_999), 61_000)).toBeUndefined();
    expect(projection(block(120_000), 121_000)?.tokensPerMinute).toBe(3000);
  });
});
