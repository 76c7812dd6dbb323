// Every registered reader, fed what a damaged or hostile file holds: random bytes, cut lines,
// huge numbers, values of the wrong type. None may throw (a reader's throw is counted as
// `reader_error`, which must never happen), hang, or let a value that is not finite into the
// store; every record that cannot be used is counted as skipped. The inputs are derived from the
// real CLIs' captures (test/fixtures/captures) with a seeded generator: deterministic, and a few
// seconds in all. A reader added to the registry is fuzzed without a line here.

import Database from 'better-sqlite3';
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { READERS } from '../../src/collectors/registry.js';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import type { LineReader, Reader, SessionFile, StoreReader } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/session/store.js';
import { StateDb } from '../../src/state/db.js';
import { capturesOf } from '../helpers/captures.js';
import { tempDir } from '../helpers/run.js';

/** mulberry32: a small seeded generator, so that every run feeds the same inputs. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (name: string) => [...name].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261);

const HUGE = [1e308, 1.23e29, 2 ** 53, 2 ** 40, -1, 1.5, 1e-300];
const WRONG: unknown[] = ['x', '', '12', 1e308, -7, 0.5, null, true, false, [], [1, 'a'], {}, { a: 1 }];

/** Every number in a JSON value replaced by `f` of it. */
function mapNumbers(v: unknown, f: () => unknown): unknown {
  if (typeof v === 'number') return f();
  if (Array.isArray(v)) return v.map((x) => mapNumbers(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapNumbers(x, f)]));
  return v;
}

/** A JSON value with some of its values (at any depth) replaced by values of another type. */
function wrongTypes(v: unknown, rand: () => number): unknown {
  if (rand() < 0.15) return WRONG[Math.floor(rand() * WRONG.length)];
  if (Array.isArray(v)) return v.map((x) => wrongTypes(x, rand));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrongTypes(x, rand)]));
  return v;
}

function randomBytes(rand: () => number, max: number): Buffer {
  const b = Buffer.alloc(1 + Math.floor(rand() * max));
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

/** Every number in a value (a session, a parser state), with its path, that is not finite. */
function nonFinite(v: unknown, path = ''): string[] {
  if (typeof v === 'number') return Number.isFinite(v) ? [] : [`${path}=${v}`];
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => nonFinite(x, `${path}.${k}`));
  return [];
}

function newStore() {
  return new SessionStore(new StateDb(':memory:'), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
}

/** Nothing the store holds or would export is infinite or NaN. */
function expectFinite(store: SessionStore, stats: Map<string, Collector<unknown>['stats']>): void {
  expect(nonFinite([...store.counters.values()].map((c) => c.value))).toEqual([]);
  expect(nonFinite([...store.sessions.values()])).toEqual([]);
  expect(nonFinite([...store.usageLimits.values()])).toEqual([]);
  const families = snapshot(store, stats, { status: { doneForMs: 1, staleAfterMs: 1 }, activeWindowMs: 1e15, perSessionMax: 1000, version: 'fuzz' });
  expect(families.flatMap((f) => f.points.filter((p) => !Number.isFinite(p.value)).map((p) => `${f.def.name}${JSON.stringify(p.labels)}`))).toEqual([]);
}

/** Records that can be nothing but bad: each must be counted as skipped. */
const GARBAGE = ['not json', '{"half": ', '\u0000\u0000\u0000\u0000', '\u00ff\u00fe{', '}{'];

describe.each(Object.entries(READERS))('fuzzing the %s reader', (harness, reader) => {
  const captures = capturesOf(reader as Reader<unknown>);
  const seeds = captures.flatMap((c) => c.files);

  it('has a capture to start from', () => {
    expect(seeds.length).toBeGreaterThan(0);
  });

  if ('readLine' in reader) lineFuzz(harness, reader as LineReader<unknown>, seeds);
  else storeFuzz(harness, reader as StoreReader<unknown>, captures);
});

function lineFuzz(harness: string, reader: LineReader<unknown>, seeds: SessionFile[]): void {
  const lines = seeds.filter((f) => !f.document).flatMap((f) => readFileSync(f.path, 'utf8').split('\n').filter(Boolean)).slice(0, 400);
  const docs = seeds.filter((f) => f.document);

  /** Feeds lines as the collector does (state persisted as JSON between lines); returns skips per line. */
  function feed(input: Buffer[]): { skips: number[]; store: SessionStore } {
    const store = newStore();
    const file: SessionFile = { path: `/fuzz/${harness}.jsonl`, sessionId: 'fuzz' };
    let state = reader.initialState(file);
    let skipped = 0;
    const errors: string[] = [];
    const events = store.events(reader.harness, () => reader.sessionOf?.(file, state) ?? file.sessionId, harness, () => void skipped++, reader.unrecorded);
    const skips = input.map((line) => {
      const before = skipped;
      store.beginLine(false);
      try {
        reader.readLine(line, state, file, events);
      } catch (e) {
        errors.push(`${String(e)} on ${line.toString('utf8').slice(0, 200)}`);
      }
      expect(nonFinite(state)).toEqual([]);
      state = JSON.parse(JSON.stringify(state));
      return skipped - before;
    });
    expect(errors).toEqual([]);
    expectFinite(store, new Map());
    return { skips, store };
  }

  it('random bytes: no throw; each line counted as skipped', () => {
    const rand = generator(seedOf(harness));
    const input = [...GARBAGE.map((g) => Buffer.from(g, 'latin1')), ...Array.from({ length: 300 }, () => randomBytes(rand, 300))]
      .map((b) => b.subarray(0, b.indexOf(10) === -1 ? b.length : b.indexOf(10)))
      .filter((b) => b.length > 0);
    const { skips } = feed(input);
    expect(input.filter((_, i) => skips[i] === 0).map((b) => b.toString('latin1').slice(0, 80))).toEqual([]);
  });

  it('cut lines: no throw, nothing infinite', () => {
    const rand = generator(seedOf(harness) + 1);
    feed(lines.map((l) => Buffer.from(l.slice(0, Math.floor(rand() * l.length)))).filter((b) => b.length > 0));
  });

  it('huge and impossible numbers: no throw, nothing infinite, nothing past the bound counted', () => {
    const rand = generator(seedOf(harness) + 2);
    for (const value of HUGE) {
      const input = lines.flatMap((l) => {
        try {
          return [Buffer.from(JSON.stringify(mapNumbers(JSON.parse(l), () => value)))];
        } catch {
          return [];
        }
      });
      const { store } = feed(input);
      // A count no record can mean never reaches a counter.
      for (const c of store.counters.values()) expect(c.value).toBeLessThan(2 ** 40 * input.length);
    }
    // Numbers written as strings of digits, and mixed huge and small numbers.
    feed(lines.flatMap((l) => {
      try {
        return [Buffer.from(JSON.stringify(mapNumbers(JSON.parse(l), () => (rand() < 0.5 ? String(Math.floor(rand() * 1000)) : HUGE[Math.floor(rand() * HUGE.length)]))))];
      } catch {
        return [];
      }
    }));
  });

  it('values of the wrong type: no throw, nothing infinite', () => {
    const rand = generator(seedOf(harness) + 3);
    for (let round = 0; round < 3; round++) {
      feed(lines.flatMap((l) => {
        try {
          return [Buffer.from(JSON.stringify(wrongTypes(JSON.parse(l), rand)))];
        } catch {
          return [];
        }
      }));
    }
  });

  if (reader.readDocument) {
    it('documents: random bytes, cut, huge numbers, wrong types: no throw, nothing infinite; garbage counted', () => {
      const rand = generator(seedOf(harness) + 4);
      const file: SessionFile = { path: `/fuzz/${harness}.json`, sessionId: 'fuzz', document: true };
      const variants: [SessionFile, Buffer][] = [[file, randomBytes(rand, 5000)], [file, Buffer.from('not json')]];
      for (const doc of docs) {
        const text = readFileSync(doc.path, 'utf8');
        variants.push([doc, Buffer.from(text.slice(0, Math.floor(rand() * text.length)))],
          [doc, Buffer.from(JSON.stringify(mapNumbers(JSON.parse(text), () => 1e308)))], [doc, Buffer.from(JSON.stringify(wrongTypes(JSON.parse(text), rand)))]);
      }
      variants.forEach(([doc, bytes], i) => {
        const store = newStore();
        let skipped = 0;
        const events = store.events(reader.harness, () => doc.sessionId, harness, () => void skipped++, reader.unrecorded);
        const state = reader.initialState(doc);
        expect(() => reader.readDocument!(bytes, state, doc, events)).not.toThrow();
        expect(nonFinite(state)).toEqual([]);
        expectFinite(store, new Map());
        if (i < 2) expect(skipped).toBeGreaterThan(0);
      });
    });
  }
}

function storeFuzz(harness: string, reader: StoreReader<unknown>, captures: { home: string; files: SessionFile[] }[]): void {
  /** A copy of every capture home, damaged by `damage`, read by a real collector. */
  async function readDamaged(damage: (db: string, rand: () => number) => void, seed: number) {
    const rand = generator(seedOf(harness) + seed);
    const out = [];
    for (const c of captures) {
      const home = tempDir();
      cpSync(c.home, home, { recursive: true });
      const roots = reader.defaultRoots({}, home);
      for (const f of roots.flatMap((r) => reader.listFiles(r))) if (statSync(f.path).isFile()) damage(f.path, rand);
      const store = newStore();
      const lines: string[] = [];
      const collector = new Collector(harness, reader, roots, store, new StateDb(':memory:'), createLogger('warn', (l) => lines.push(l)));
      await collector.scan();
      expect(collector.stats.skipped.get('reader_error')).toBeUndefined();
      expectFinite(store, new Map([[harness, collector.stats]]));
      out.push({ collector, store, lines });
    }
    return out;
  }

  /** Every JSON text column of every row, rewritten by `f`. */
  function rewriteJson(path: string, f: (v: unknown) => unknown): void {
    const db = new Database(path);
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]) {
      const rows = db.prepare(`SELECT rowid AS _rowid, * FROM "${name}"`).all() as Record<string, unknown>[];
      for (const row of rows) {
        for (const [col, value] of Object.entries(row)) {
          if (typeof value !== 'string' || !/^[[{]/.test(value)) continue;
          let parsed: unknown;
          try {
            parsed = JSON.parse(value);
          } catch {
            continue;
          }
          db.prepare(`UPDATE "${name}" SET "${col}" = ? WHERE rowid = ?`).run(JSON.stringify(f(parsed)), row._rowid);
        }
      }
    }
    db.close();
  }

  it('random bytes over the database: the scan fails (counted, logged), nothing thrown or infinite', async () => {
    for (const { collector, lines } of await readDamaged((p, rand) => {
      const bytes = readFileSync(p);
      const junk = randomBytes(rand, 4096);
      junk.copy(bytes, Math.floor(rand() * Math.max(1, bytes.length - junk.length)));
      writeFileSync(p, Buffer.concat([randomBytes(rand, 100), bytes.subarray(100)]));
    }, 10)) {
      expect(collector.stats.success).toBe(false);
      expect(lines.some((l) => l.includes('could not read store'))).toBe(true);
    }
  });

  it('a cut database: nothing thrown or infinite', async () => {
    await readDamaged((p, rand) => writeFileSync(p, readFileSync(p).subarray(0, Math.floor(rand() * statSync(p).size))), 11);
  });

  it('huge and impossible numbers in every JSON value: read, counted as implausible, nothing infinite', async () => {
    for (const value of HUGE) {
      const results = await readDamaged((p) => rewriteJson(p, (v) => mapNumbers(v, () => value)), 12);
      for (const { collector, store } of results) {
        expect(collector.stats.success).toBe(true);
        for (const c of store.counters.values()) expect(c.value).toBeLessThan(2 ** 40 * 1000);
      }
      if (value >= 2 ** 40) expect(results.some((r) => (r.collector.stats.skipped.get('implausible_value') ?? 0) > 0)).toBe(true);
    }
  });

  it('values of the wrong type in every JSON value: read, nothing thrown or infinite', async () => {
    for (let round = 0; round < 3; round++) {
      for (const { collector } of await readDamaged((p, rand) => rewriteJson(p, (v) => wrongTypes(v, rand)), 13 + round)) {
        expect(collector.stats.success).toBe(true);
      }
    }
  });
}
