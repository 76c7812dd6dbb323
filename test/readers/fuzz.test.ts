// Every registered reader, fed what a damaged or hostile file holds: random bytes, cut lines,
// huge numbers, values of the wrong type. None may throw (a reader's throw is counted as
// `reader_error`, which must never happen), hang, or let a value that is not finite into the
// store; every record that cannot be used is counted as skipped. The inputs are derived from the
// fixture homes (`homesOf`) with a seeded generator: deterministic, and a few seconds in all. A
// harness added to the registry (and to harnesses.ts's table) is fuzzed without a line here, once a
// fixture home holds its files.

import { Database } from '../helpers/sqlite.js';
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { READERS } from '../helpers/readers.js';
import type { HarnessId } from '../../src/session/types.js';
import { HARNESS_FIXTURES } from './harnesses.js';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { readAtOnce, type LineReader, type Reader, type SessionFile } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { capturesOf } from '../helpers/captures.js';
import { crushHome } from '../helpers/crush-db.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { sinkOf } from '../helpers/events.js';
import { zstdFrame } from '../helpers/zstd.js';
import { unzstd } from '../../src/readers/zstd.js';

/** A HOME in which a reader finds session files (through its default roots), and how to write a copy of it. */
interface Home {
  files: SessionFile[];
  copyTo(dir: string): void;
}

const AIDER_CURSOR_ANTIGRAVITY = join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite');
const VSCODE_EXTENSIONS = join(FIXTURES, 'homes/vscode-extensions-and-clis');
const EDITOR_STORES = join(FIXTURES, 'homes/editor-stores-and-clis');
const CRUSH = crushHome();

/**
 * The homes a reader's inputs start from: the real CLIs' captures, the sample homes of
 * test/fixtures/homes (Aider, Cursor agent, Antigravity and the SQLite stores of Hermes, Kodelet and
 * goose; the VS Code extensions' tasks, Kimi CLI, OpenClaw's JSONL, Amp, Auggie, Junie; the editors'
 * stores and TRAE CLI, Grok, OpenHands, Kiro, Qoder, Copilot CLI) and the Crush home its
 * helper writes (its projects.json names the databases by absolute path: a copy is written anew).
 */
function homesOf(reader: Reader<unknown>): Home[] {
  const filesIn = (home: string) =>
    reader.defaultRoots({}, home).flatMap((r) => (existsSync(r) ? reader.listFiles(r) : []));
  const copy = (home: string) => (dir: string) => cpSync(home, dir, { recursive: true });
  return [
    ...capturesOf(reader).map(({ home, files }) => ({ files, copyTo: copy(home) })),
    { files: filesIn(AIDER_CURSOR_ANTIGRAVITY), copyTo: copy(AIDER_CURSOR_ANTIGRAVITY) },
    { files: filesIn(VSCODE_EXTENSIONS), copyTo: copy(VSCODE_EXTENSIONS) },
    { files: filesIn(EDITOR_STORES), copyTo: copy(EDITOR_STORES) },
    { files: filesIn(CRUSH), copyTo: (dir: string) => void crushHome(dir) },
  ].filter((h) => h.files.length > 0);
}

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

/**
 * What a token field may hold that is no count: each must be skipped and counted, never read as
 * 0. `RAW`: written as they are, no JSON (Python's json.dumps writes NaN and Infinity), and 1e400,
 * which JSON.parse reads as Infinity.
 */
const NOT_COUNTS: unknown[] = ['-5', '12a', true, {}, 'NaN', '', []];
const RAW = ['NaN', 'Infinity', '0x10', '1e400'];
const RAW_MARK = 'raw-literal-0b5e';
/** Keys of token counts, as the harnesses name them (`input_tokens`, `inputTokens`, `tokens.input`, `cache.read`, ...). */
const TOKEN_KEY = /token|^(input|output|cached|cacheRead|cacheWrite|read|write|reasoning|thoughts|tool|total)$/i;

/**
 * Every number under a token key (at any depth) replaced by `value`, in JSON texts held as strings
 * too (the Cline family's request records are JSON in a message's `text`).
 */
function mapCounts(v: unknown, value: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => mapCounts(x, value));
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, typeof x === 'number' && TOKEN_KEY.test(k) ? value : mapCounts(x, value)]),
    );
  }
  if (typeof v === 'string' && /^[[{]/.test(v)) return withJson(v, (inner) => mapCounts(inner, value)) ?? v;
  return v;
}

/** A value as `mapCounts` writes it: a RAW one marked, to be written as it is by `unmark`. */
const marked = (value: unknown) => (RAW.includes(value as string) ? `${RAW_MARK}${value as string}` : value);
const unmark = (json: string) => json.replace(new RegExp(`"${RAW_MARK}([^"]*)"`, 'g'), '$1');

/** A JSON text rewritten by `f` (RAW values written as they are); undefined where it is no JSON. */
function withJson(text: string, f: (v: unknown) => unknown): string | undefined {
  try {
    return unmark(JSON.stringify(f(JSON.parse(text))));
  } catch {
    return undefined;
  }
}

/** A JSON text with its token counts replaced by `value`; undefined where it is no JSON. */
const withCounts = (text: string, value: unknown) => withJson(text, (v) => mapCounts(v, marked(value)));

/**
 * A file's JSON rewritten by `f`: whole where it is one JSON text, else line by line (a file of
 * JSON lines read whole: Copilot in VS Code's journals, OpenClaw's older sessions), each line that
 * is no JSON left as it is.
 */
const withJsonFile = (text: string, f: (v: unknown) => unknown): string =>
  withJson(text, f) ??
  text
    .split('\n')
    .map((l) => withJson(l, f) ?? l)
    .join('\n');

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
const isDatabase = (path: string) => readFileSync(path).subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER);

/** Every number in a JSON value (and in JSON texts held as strings, as `mapCounts`) replaced by `f` of it. */
function mapNumbers(v: unknown, f: () => unknown): unknown {
  if (typeof v === 'number') return f();
  if (Array.isArray(v)) return v.map((x) => mapNumbers(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapNumbers(x, f)]));
  if (typeof v === 'string' && /^[[{]/.test(v)) return withJson(v, (inner) => mapNumbers(inner, f)) ?? v;
  return v;
}

/** A JSON value with some of its values (at any depth) replaced by values of another type. */
function wrongTypes(v: unknown, rand: () => number): unknown {
  if (rand() < 0.15) return WRONG[Math.floor(rand() * WRONG.length)];
  if (Array.isArray(v)) return v.map((x) => wrongTypes(x, rand));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrongTypes(x, rand)]));
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
  const families = snapshot(store, stats, {
    status: { doneForMs: 1, staleAfterMs: 1 },
    activeWindowMs: 1e15,
    perSessionMax: 1000,
    version: 'fuzz',
  });
  expect(
    families.flatMap((f) =>
      f.points.filter((p) => !Number.isFinite(p.value)).map((p) => `${f.def.name}${JSON.stringify(p.labels)}`),
    ),
  ).toEqual([]);
}

/** Every token counted. */
const tokenSum = (store: SessionStore) =>
  [...store.counters.values()].filter((c) => c.metric === 'tokens').reduce((a, c) => a + c.value, 0);

/**
 * A column's JSON text, with how to store damaged JSON back: text as it is, a BLOB of JSON, or a
 * zstd BLOB of it (Zed's threads), written back as a frame of raw blocks.
 */
function jsonColumn(value: unknown): { text: string; store: (json: string) => unknown } | undefined {
  if (typeof value === 'string') return { text: value, store: (json) => json };
  if (!(value instanceof Uint8Array)) return undefined;
  const inflated = unzstd(value, 64 << 20);
  if (Buffer.isBuffer(inflated))
    return { text: inflated.toString('utf8'), store: (json) => zstdFrame([Buffer.from(json)]) };
  return { text: Buffer.from(value).toString('utf8'), store: (json) => Buffer.from(json) };
}

/** Readers whose token counts are in protobuf records, which the fuzzing of stores leaves as they are. */
const COUNTS_IN_PROTOBUF = new Set(['antigravity-cli']);

/** Records that can be nothing but bad: each must be counted as skipped. */
const GARBAGE = ['not json', '{"half": ', '\u0000\u0000\u0000\u0000', '\u00ff\u00fe{', '}{'];

// Every harness of the table (its keys are the registry's), so none is left out.
describe.each(Object.keys(HARNESS_FIXTURES) as HarnessId[])('fuzzing the %s reader', (harness) => {
  const reader = READERS[harness];
  const homes = homesOf(reader);
  const seeds = homes.flatMap((h) => h.files);

  it('has a fixture to start from', () => {
    expect(seeds.length).toBeGreaterThan(0);
  });

  if (reader.kind === 'files')
    lineFuzz(
      harness,
      reader,
      seeds.filter((f) => !f.store),
    );
  if (reader.readDocument)
    documentFuzz(
      harness,
      reader,
      seeds.filter((f) => f.document && !f.store),
    );
  // A reader of session files may read a database beside them as a store (Copilot CLI's).
  if (reader.kind === 'store' || seeds.some((f) => f.store)) storeFuzz(harness, reader, homes);
});

function lineFuzz(harness: string, reader: LineReader<unknown>, seeds: SessionFile[]): void {
  const lines = seeds
    .filter((f) => !f.document)
    .flatMap((f) => readFileSync(f.path, 'utf8').split('\n').filter(Boolean))
    .slice(0, 400);

  /** Feeds lines as the collector does (state persisted as JSON between lines); returns skips per line. */
  function feed(input: Buffer[]): { skips: number[]; store: SessionStore; reasons: Set<string> } {
    const store = newStore();
    const file: SessionFile = { path: `/fuzz/${harness}.jsonl`, sessionId: 'fuzz' };
    let state = reader.initialState(file);
    let skipped = 0;
    const reasons = new Set<string>();
    const errors: string[] = [];
    const onSkip = (reason: string) => {
      skipped++;
      reasons.add(reason);
    };
    const events = sinkOf(
      store,
      reader.harness,
      () => reader.sessionOf?.(file, state) ?? file.sessionId,
      harness,
      onSkip,
      reader.unrecorded,
    );
    const skips = input.map((line) => {
      const before = skipped;
      events.beginLine(false);
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
    return { skips, store, reasons };
  }

  it('random bytes: no throw; each line counted as skipped', () => {
    const rand = generator(seedOf(harness));
    const input = [
      ...GARBAGE.map((g) => Buffer.from(g, 'latin1')),
      ...Array.from({ length: 300 }, () => randomBytes(rand, 300)),
    ]
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
    feed(
      lines.flatMap((l) => {
        try {
          return [
            Buffer.from(
              JSON.stringify(
                mapNumbers(JSON.parse(l), () =>
                  rand() < 0.5 ? String(Math.floor(rand() * 1000)) : HUGE[Math.floor(rand() * HUGE.length)],
                ),
              ),
            ),
          ];
        } catch {
          return [];
        }
      }),
    );
  });

  it('token counts that are no counts: skipped and counted, never read as 0', () => {
    // No tokens to damage (Cursor), or no JSON to damage them in (Aider's text).
    if (tokenSum(feed(lines.map((l) => Buffer.from(l))).store) === 0 || !lines.some((l) => withCounts(l, 0))) return;
    for (const value of [...NOT_COUNTS, ...RAW]) {
      const { store, reasons } = feed(lines.flatMap((l) => withCounts(l, value) ?? []).map((l) => Buffer.from(l)));
      expect([value, tokenSum(store)]).toEqual([value, 0]);
      expect([value, reasons.has('implausible_value') || reasons.has('parse_error')]).toEqual([value, true]);
    }
  });

  it('values of the wrong type: no throw, nothing infinite', () => {
    const rand = generator(seedOf(harness) + 3);
    for (let round = 0; round < 3; round++) {
      feed(
        lines.flatMap((l) => {
          try {
            return [Buffer.from(JSON.stringify(wrongTypes(JSON.parse(l), rand)))];
          } catch {
            return [];
          }
        }),
      );
    }
  });
}

/**
 * A whole document's reader (a `documents` reader, or the documents a files or store reader lists
 * beside its lines or its store: Kilo's and Copilot in VS Code's): damaged documents.
 */
function documentFuzz(harness: string, reader: Reader<unknown>, docs: SessionFile[]): void {
  it('documents: random bytes, cut, huge numbers, wrong types: no throw, nothing infinite; garbage counted', () => {
    const rand = generator(seedOf(harness) + 4);
    // Garbage in the place of each document, not in a file of a made-up path: a reader tells its
    // documents apart by their paths (Kilo's task transcripts from its database's, Copilot's
    // journals from its transcripts), and would not be handed another.
    const variants: [SessionFile, Buffer, garbage: boolean][] = [];
    for (const doc of docs) {
      const text = readFileSync(doc.path, 'utf8');
      variants.push(
        [doc, randomBytes(rand, 5000), true],
        [doc, Buffer.from('not json'), true],
        [doc, Buffer.from(text.slice(0, Math.floor(rand() * text.length))), false],
        [doc, Buffer.from(withJsonFile(text, (v) => mapNumbers(v, () => 1e308))), false],
        [doc, Buffer.from(withJsonFile(text, (v) => wrongTypes(v, rand))), false],
      );
    }
    variants.forEach(([doc, bytes, garbage]) => {
      const store = newStore();
      let skipped = 0;
      const events = sinkOf(
        store,
        reader.harness,
        () => doc.sessionId,
        harness,
        () => void skipped++,
        reader.unrecorded,
      );
      const state = reader.initialState(doc);
      expect(() => readAtOnce(reader.readDocument!(bytes, state, doc, events))).not.toThrow();
      expect(nonFinite(state)).toEqual([]);
      expectFinite(store, new Map());
      if (garbage) expect([doc.path, skipped > 0]).toEqual([doc.path, true]);
    });
  });

  it('documents: token counts that are no counts skipped and counted, never read as 0', () => {
    const read = (doc: SessionFile, text: string) => {
      const store = newStore();
      const reasons = new Set<string>();
      readAtOnce(
        reader.readDocument!(
          Buffer.from(text),
          reader.initialState(doc),
          doc,
          sinkOf(
            store,
            reader.harness,
            () => doc.sessionId,
            harness,
            (r) => void reasons.add(r),
            reader.unrecorded,
          ),
        ),
      );
      return { tokens: tokenSum(store), reasons };
    };
    for (const doc of docs) {
      const text = readFileSync(doc.path, 'utf8');
      if (read(doc, text).tokens === 0) continue;
      for (const value of [...NOT_COUNTS, ...RAW]) {
        const { tokens, reasons } = read(
          doc,
          withJsonFile(text, (v) => mapCounts(v, marked(value))),
        );
        expect([value, tokens, reasons.has('implausible_value') || reasons.has('parse_error')]).toEqual([
          value,
          0,
          true,
        ]);
      }
    }
  });
}

function storeFuzz(harness: string, reader: Reader<unknown>, homes: Home[]): void {
  /** A copy of every fixture home, damaged by `damage`, read by a real collector. */
  async function readDamaged(damage: (db: string, rand: () => number) => void, seed: number) {
    const rand = generator(seedOf(harness) + seed);
    const out = [];
    for (const h of homes) {
      const home = tempDir();
      h.copyTo(home);
      const roots = reader.defaultRoots({}, home);
      const damaged = roots.flatMap((r) => reader.listFiles(r)).filter((f) => statSync(f.path).isFile());
      const databases = damaged.filter((f) => isDatabase(f.path)).length;
      for (const f of damaged) damage(f.path, rand);
      const store = newStore();
      const lines: string[] = [];
      const collector = new Collector(
        harness,
        reader,
        roots,
        store,
        new StateDb(':memory:'),
        createLogger('warn', (l) => lines.push(l)),
      );
      await collector.scan();
      expect(collector.stats.skipped.get('reader_error')).toBeUndefined();
      expectFinite(store, new Map([[harness, collector.stats]]));
      out.push({ collector, store, lines, damaged: damaged.length, databases });
    }
    return out;
  }

  /**
   * Every JSON text column of every row rewritten by `f`, and with `number` every number column
   * too (except the keys, which name the rows; one for which `number` gives undefined stays).
   */
  function rewrite(path: string, f: (v: unknown) => unknown, number?: (column: string) => unknown): void {
    // A document a store reader lists beside its store (Kilo's extension tasks), or a JSONL file it
    // reads as a store (OpenClaw's older sessions): damaged as JSON, whole or line by line.
    if (!isDatabase(path)) {
      writeFileSync(path, withJsonFile(readFileSync(path, 'utf8'), f));
      return;
    }
    const db = new Database(path);
    // Tables only: a full-text index's virtual table and its shadow tables are SQLite's to write.
    const tables = (db.pragma('table_list') as { schema: string; name: string; type: string; wr: number }[]).filter(
      (t) => t.schema === 'main' && t.type === 'table' && t.name !== 'sqlite_schema',
    );
    for (const { name, wr } of tables) {
      const keys = (db.pragma(`table_info("${name}")`) as { name: string; pk: number }[])
        .filter((c) => c.pk > 0)
        .map((c) => c.name);
      // A row is named by its rowid, or in a table without one (OpenClaw's) by its primary key.
      const rowKeys = wr ? keys : ['rowid'];
      const rows = db
        .prepare(`SELECT ${rowKeys.map((k, i) => `"${k}" AS _key${i}`).join(', ')}, * FROM "${name}"`)
        .all() as Record<string, unknown>[];
      const where = rowKeys.map((k) => `"${k}" = ?`).join(' AND ');
      for (const row of rows) {
        const rowKey = rowKeys.map((_, i) => row[`_key${i}`]);
        for (const [col, value] of Object.entries(row)) {
          if (col.startsWith('_key')) continue;
          // A number column the case damages, or a JSON column damaged inside.
          let now: unknown = typeof value === 'number' && number && !keys.includes(col) ? number(col) : undefined;
          if (now === undefined) {
            const json = jsonColumn(value);
            if (!json || !/^[[{]/.test(json.text)) continue;
            const damaged = withJson(json.text, f);
            if (damaged === undefined) continue;
            now = json.store(damaged);
          }
          try {
            db.prepare(`UPDATE "${name}" SET "${col}" = ? WHERE ${where}`).run(now, ...rowKey);
          } catch (e) {
            // A value the schema refuses (a unique index over the column) stays as it was.
            if (!String((e as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) throw e;
          }
        }
      }
    }
    db.close();
  }

  /** The tokens counted, by counter. */
  const tokensOf = (store: SessionStore) =>
    Object.fromEntries([...store.counters.values()].filter((c) => c.metric === 'tokens').map((c) => [c.key, c.value]));

  it('random bytes over the database: the scan fails (logged) or the store is skipped (counted), nothing thrown or infinite', async () => {
    for (const { collector, lines, damaged, databases } of await readDamaged((p, rand) => {
      const bytes = readFileSync(p);
      const junk = randomBytes(rand, 4096);
      junk.copy(bytes, Math.floor(rand() * Math.max(1, bytes.length - junk.length)));
      writeFileSync(p, Buffer.concat([randomBytes(rand, 100), bytes.subarray(100)]));
    }, 10)) {
      // A store of many sessions fails the scan, which the log says; a store of one conversation
      // (Antigravity's) costs only itself: skipped as parse_error, each. A JSONL file read as a
      // store (OpenClaw's older sessions) or a document beside one loses the records damaged in
      // it: each skipped, at least one a file.
      const parseErrors = collector.stats.skipped.get('parse_error') ?? 0;
      if (!collector.stats.success) expect(lines.some((l) => l.includes('could not read store'))).toBe(true);
      else if (databases === damaged) expect(parseErrors).toBe(damaged);
      else expect(parseErrors).toBeGreaterThanOrEqual(damaged);
    }
  });

  it('a cut database: nothing thrown or infinite', async () => {
    await readDamaged(
      (p, rand) => writeFileSync(p, readFileSync(p).subarray(0, Math.floor(rand() * statSync(p).size))),
      11,
    );
  });

  it('huge and impossible numbers in every JSON value and number column: read, counted as implausible, nothing infinite', async () => {
    const intact = (await readDamaged(() => {}, 12)).map((r) => tokensOf(r.store));
    const implausible = intact.map(() => 0);
    for (const value of HUGE) {
      const results = await readDamaged(
        (p) =>
          rewrite(
            p,
            (v) => mapNumbers(v, () => value),
            () => value,
          ),
        12,
      );
      results.forEach(({ collector, store }, i) => {
        expect(collector.stats.success).toBe(true);
        for (const c of store.counters.values()) expect(c.value).toBeLessThan(2 ** 40 * 1000);
        // No count can be any of these values: none adds a token (times and keys are damaged
        // too, and records left unread for that).
        for (const [k, n] of Object.entries(tokensOf(store)))
          expect([k, value, n]).toEqual([k, value, Math.min(n, intact[i]![k] ?? 0)]);
        if (value >= 2 ** 40) implausible[i]! += collector.stats.skipped.get('implausible_value') ?? 0;
      });
    }
    // Counts past the bound are skipped and counted, in every home with tokens (where a time is
    // not damaged past any date first). Antigravity's counts are in protobuf records, which this
    // leaves as they are.
    intact.forEach((tokens, i) => {
      if (Object.keys(tokens).length > 0 && !COUNTS_IN_PROTOBUF.has(harness)) expect(implausible[i]).toBeGreaterThan(0);
    });
  });

  it('token counts that are no counts, in JSON values and token columns: skipped and counted, never read as 0', async () => {
    const intact = (await readDamaged(() => {}, 14)).map((r) => tokenSum(r.store));
    if (COUNTS_IN_PROTOBUF.has(harness)) return;
    for (const value of [...NOT_COUNTS, ...RAW]) {
      // A column holds text where JSON holds true, {} or []: SQLite has no such values.
      const column = typeof value === 'string' ? value : JSON.stringify(value);
      const results = await readDamaged(
        (p) =>
          rewrite(
            p,
            (v) => mapCounts(v, marked(value)),
            (col) => (TOKEN_KEY.test(col) ? column : undefined),
          ),
        14,
      );
      results.forEach(({ collector, store }, i) => {
        if (intact[i] === 0) return;
        expect([value, tokenSum(store)]).toEqual([value, 0]);
        const skipped =
          (collector.stats.skipped.get('implausible_value') ?? 0) + (collector.stats.skipped.get('parse_error') ?? 0);
        expect([value, skipped > 0]).toEqual([value, true]);
      });
    }
  });

  it('values of the wrong type in every JSON value: read, nothing thrown or infinite', async () => {
    for (let round = 0; round < 3; round++) {
      for (const { collector } of await readDamaged((p, rand) => rewrite(p, (v) => wrongTypes(v, rand)), 13 + round)) {
        expect(collector.stats.success).toBe(true);
      }
    }
  });
}
