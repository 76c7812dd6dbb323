// The exporter's own state: how far each file was read, what each reader's parser knew there, the
// sessions, every counter's total, and the dedupe keys. Everything a scan changes is committed in
// one transaction, so a crash (even kill -9 mid-scan) restarts from a consistent point and re-reads
// the uncommitted bytes: totals come out the same and never go backwards.
//
// The database is the only memory of what was counted: one that is empty, unreadable or of
// another schema is never silently replaced (counters would restart from 0 and go backwards for
// files the harnesses deleted since). Start-up stops and names the file and `--reset-state`.

import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Db, type Statement } from '../files/sqlite.js';
import { BloomFilter } from './bloom.js';

/** The state database's file in the state folder. */
function statePath(dir: string): string {
  return join(dir, 'state.db');
}

/** Whether the state folder holds a state database (a report without one reads the files itself). */
export function hasState(dir: string): boolean {
  return existsSync(statePath(dir));
}

// Dedupe keys written a hundred to a statement: one statement a key took 100 ms of the first read
// of 1 GB (100,000 keys), on the thread that reads; a hundred at a time, a third of it.
const SEEN_BATCH = 100;

// `PRAGMA user_version` of the schema below. Version 1 is the schema before versions were
// written (user_version 0, no `files.gone_ms`); version 2 has no `files.state_version` (every
// reader state it holds is of version 1); version 3 has no `ledger`; version 4's ledger has whole
// hours (no `quarter`: its rows become each hour's first quarter). All are upgraded in place.
const VERSION = 5;

// The page cache (KB) where few pages are wanted at a time: the start-up check, and everything after
// the first read. SQLite's default is 2 MB.
const SMALL_CACHE_KB = 64;

// The ledger: what was used per quarter hour (UTC hour and quarter 0-3, so that a day can be cut
// in any time zone: every zone's offset is whole quarters), harness, project and model, added to at
// each commit (the quarter last in the key: a report sums an hour's quarters in the key's order, no
// sort). Its columns after the key, in the order of LedgerRow.
const LEDGER_SUMS = [
  'input',
  'output',
  'cache_read',
  'cache_write',
  'reasoning',
  'cost_usd',
  'requests',
  'sessions',
  'turns_completed',
  'turns_failed',
  'turns_interrupted',
] as const;
const LEDGER = `CREATE TABLE ledger (hour INTEGER NOT NULL, quarter INTEGER NOT NULL, harness TEXT NOT NULL, project TEXT NOT NULL,
    model TEXT NOT NULL, ${LEDGER_SUMS.map((c) => `${c} ${c === 'cost_usd' ? 'REAL' : 'INTEGER'} NOT NULL DEFAULT 0`).join(', ')},
    first_ms REAL, last_ms REAL, PRIMARY KEY (hour, harness, project, model, quarter)) WITHOUT ROWID`;
const LEDGER_COLUMNS = `harness, project, model, ${LEDGER_SUMS.join(', ')}, first_ms, last_ms`;

const SCHEMA = `
  CREATE TABLE files (path TEXT PRIMARY KEY, collector TEXT NOT NULL, ino INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime_ms REAL NOT NULL, offset INTEGER NOT NULL, state TEXT NOT NULL,
    head TEXT, head_length INTEGER, gone_ms REAL, state_version INTEGER);
  CREATE TABLE sessions (key TEXT PRIMARY KEY, data TEXT NOT NULL);
  CREATE TABLE counters (key TEXT PRIMARY KEY, metric TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL);
  CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  ${LEDGER};
  PRAGMA user_version = ${VERSION};
`;

// Every table and the columns it must have (of the oldest schema that is upgraded), and the
// ledger's, which a database of version 4 and later must have.
const TABLES: Record<string, string[]> = {
  files: ['path', 'collector', 'ino', 'size', 'mtime_ms', 'offset', 'state', 'head', 'head_length'],
  sessions: ['key', 'data'],
  counters: ['key', 'metric', 'labels', 'value'],
  seen: ['key'],
  kv: ['key', 'value'],
};
const LEDGER_TABLE = { ledger: ['hour', 'harness', 'project', 'model', ...LEDGER_SUMS, 'first_ms', 'last_ms'] };

/** A state database that cannot be used as it is: start-up stops with this message. */
export class StateError extends Error {
  constructor(path: string, problem: string) {
    super(
      `state database ${path} ${problem}. It holds every counter's total: move it away to keep it, or start with --reset-state to start over from 0`,
    );
  }
}

export interface FileRow {
  path: string;
  collector: string;
  /** Identity of the file read (inode), to notice a file replaced under the same name. */
  ino: number;
  size: number;
  mtimeMs: number;
  offset: number;
  /** The reader's parser state at `offset`, as JSON. */
  state: string;
  /** The reader's `stateVersion` the state was written in (absent: 1). */
  stateVersion?: number;
  /** Hash of the file's first `headLength` bytes: tells a rewritten file from a new one. */
  head?: string;
  headLength?: number;
  /** When the file was first found missing (ms): its row is kept a while, in case it comes back. */
  goneMs?: number;
}

export interface CounterRow {
  key: string;
  metric: string;
  labels: string;
  value: number;
}

/**
 * One quarter hour of one harness, project and model in the ledger: what it used (tokens as the counters
 * count them: input without cache, output with reasoning), cost (USD, priced models only), model
 * requests, sessions whose first request it holds, turns ended by outcome, and the first and last
 * request's time (ms; null without requests). In a commit's changes: what to add.
 */
export interface LedgerRow {
  /** Hours since the epoch (UTC). */
  hour: number;
  /** The quarter of the hour (0-3); 0 in the whole hours of a database of schema 4. */
  quarter: number;
  harness: string;
  project: string;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  costUsd: number;
  requests: number;
  sessions: number;
  turnsCompleted: number;
  turnsFailed: number;
  turnsInterrupted: number;
  firstMs: number | null;
  lastMs: number | null;
}

// The counts of LedgerRow (its names of LEDGER_SUMS).
type LedgerCount = Exclude<
  { [K in keyof LedgerRow]: LedgerRow[K] extends number ? K : never }[keyof LedgerRow],
  'hour' | 'quarter'
>;
const LEDGER_KEYS = LEDGER_SUMS.map((c) => c.replace(/_(\w)/g, (_, x: string) => x.toUpperCase())) as LedgerCount[];

/** The ledger's rows of some hours; `quarter`: that column, or `0` in a ledger of whole hours (schema 4). */
const ledgerSelect = (
  quarter: string,
) => `SELECT hour, ${quarter} AS quarter, harness, project, model, input, output, cache_read AS cacheRead, cache_write AS cacheWrite,
  reasoning, cost_usd AS costUsd, requests, sessions, turns_completed AS turnsCompleted, turns_failed AS turnsFailed,
  turns_interrupted AS turnsInterrupted, first_ms AS firstMs, last_ms AS lastMs FROM ledger WHERE hour >= ? AND hour < ?`;
const LEDGER_SELECT = ledgerSelect('quarter');
const SUMS = `${LEDGER_SUMS.map((c) => `sum(${c}) AS ${c.replace(/_(\w)/g, (_, l: string) => l.toUpperCase())}`).join(', ')},
  min(first_ms) AS firstMs, max(last_ms) AS lastMs`;
const QUARTER = 'hour * 4 + quarter';

/**
 * How `report` has the ledger's rows summed: each `quarters` quarters of an hour into one row (1,
 * 2 or 4), or a row per calendar day of a zone whose offsets from UTC, in quarters, start at the
 * quarters (since the epoch) of `days` (store/ledger.ts, zoneOffsets). A row is of its first quarter.
 */
export type LedgerSum = { quarters: number } | { days: { from: number; quarters: number }[] };

function ledgerSumSelect(sum: LedgerSum): string {
  if ('quarters' in sum) {
    const n = Math.trunc(sum.quarters);
    if (n <= 1) return LEDGER_SELECT;
    return `SELECT hour, quarter / ${n} * ${n} AS quarter, harness, project, model, ${SUMS}
      FROM ledger WHERE hour >= ? AND hour < ? GROUP BY hour, harness, project, model, quarter / ${n}`;
  }
  // The local quarter's day: 96 quarters a day, from the local midnight.
  const [first, ...changes] = sum.days;
  const offset =
    changes.length === 0
      ? `${Math.trunc(first!.quarters)}`
      : `CASE ${changes
          .reverse()
          .map((d) => `WHEN ${QUARTER} >= ${Math.trunc(d.from)} THEN ${Math.trunc(d.quarters)}`)
          .join(' ')} ELSE ${Math.trunc(first!.quarters)} END`;
  return `SELECT min(${QUARTER}) / 4 AS hour, min(${QUARTER}) % 4 AS quarter, harness, project, model, ${SUMS}
    FROM ledger WHERE hour >= ? AND hour < ? GROUP BY (${QUARTER} + ${offset}) / 96, harness, project, model`;
}

export interface Changes {
  files: FileRow[];
  removedFiles: string[];
  sessions: { key: string; data: string }[];
  /** Sessions gone by another key (renamed). */
  removedSessions?: string[];
  counters: CounterRow[];
  /** Dedupe keys first seen (each `<collector>\0<key>`). */
  seen: string[];
  kv: { key: string; value: string }[];
  /** What to add to the ledger, by hour, quarter, harness, project and model. */
  ledger?: LedgerRow[];
  /** Ledger hours before this one are deleted (the kept days, `ledger.days`). */
  ledgerBefore?: number;
}

export class StateDb {
  private readonly db: Db;
  private readonly seenGet: Statement;
  private readonly ledgerGet: Statement;
  private readonly commitTx: (c: Changes) => void;
  /**
   * Every key in `seen`, so that lookups of new keys need no query; read at the first lookup, not
   * at open: a restart that finds nothing new never looks one up (reading 16,661 keys of a 200 MB
   * history was a third of a warm restart's state database time), and never holds the filter's 2 MB.
   */
  private seenKeys?: BloomFilter;

  /**
   * `dir`: the state folder, or `':memory:'` for a database in memory alone (tests).
   * `reset`: delete the database first (`--reset-state`). `privateCopy`: the database is read
   * once, read-only, into memory and never written (`top` beside a running `serve`, which owns the
   * file): it starts from what was committed and keeps its own changes to itself.
   */
  constructor(dir: string, opts: { reset?: boolean; privateCopy?: boolean } = {}) {
    this.db = dir === ':memory:' ? memoryDb() : opts.privateCopy ? memoryCopy(dir) : openFile(dir, opts.reset ?? false);
    this.seenGet = this.db.prepare('SELECT 1 FROM seen WHERE key = ?');
    const putFile = this.db
      .prepare(`INSERT OR REPLACE INTO files (path, collector, ino, size, mtime_ms, offset, state, head, head_length, gone_ms, state_version)
      VALUES (@path, @collector, @ino, @size, @mtimeMs, @offset, @state, @head, @headLength, @goneMs, @stateVersion)`);
    const delFile = this.db.prepare('DELETE FROM files WHERE path = ?');
    const putSession = this.db.prepare('INSERT OR REPLACE INTO sessions (key, data) VALUES (@key, @data)');
    const delSession = this.db.prepare('DELETE FROM sessions WHERE key = ?');
    const putCounter = this.db.prepare(
      'INSERT OR REPLACE INTO counters (key, metric, labels, value) VALUES (@key, @metric, @labels, @value)',
    );
    const putSeen = this.db.prepare('INSERT OR IGNORE INTO seen (key) VALUES (?)');
    const putSeenBatch = this.db.prepare(
      `INSERT OR IGNORE INTO seen (key) VALUES ${'(?), '.repeat(SEEN_BATCH - 1)}(?)`,
    );
    const putKv = this.db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (@key, @value)');
    const addLedger = this.db.prepare(`INSERT INTO ledger (hour, quarter, ${LEDGER_COLUMNS})
      VALUES (@hour, @quarter, @harness, @project, @model, @input, @output, @cacheRead, @cacheWrite, @reasoning, @costUsd, @requests, @sessions,
        @turnsCompleted, @turnsFailed, @turnsInterrupted, @firstMs, @lastMs)
      ON CONFLICT (hour, harness, project, model, quarter) DO UPDATE SET ${LEDGER_SUMS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')},
        first_ms = CASE WHEN first_ms IS NULL OR excluded.first_ms < first_ms THEN excluded.first_ms ELSE first_ms END,
        last_ms = CASE WHEN last_ms IS NULL OR excluded.last_ms > last_ms THEN excluded.last_ms ELSE last_ms END`);
    const pruneLedger = this.db.prepare('DELETE FROM ledger WHERE hour < ?');
    this.ledgerGet = this.db.prepare(LEDGER_SELECT);
    this.commitTx = this.db.transaction((c: Changes) => {
      for (const f of c.files) putFile.run({ head: null, headLength: null, goneMs: null, stateVersion: null, ...f });
      for (const p of c.removedFiles) delFile.run(p);
      for (const k of c.removedSessions ?? []) delSession.run(k);
      for (const s of c.sessions) putSession.run(s);
      for (const r of c.counters) putCounter.run(r);
      let batched = 0;
      for (; batched + SEEN_BATCH <= c.seen.length; batched += SEEN_BATCH)
        putSeenBatch.run(...c.seen.slice(batched, batched + SEEN_BATCH));
      for (const key of c.seen.slice(batched)) putSeen.run(key);
      for (const key of c.seen) this.seenKeys?.add(key);
      for (const k of c.kv) putKv.run(k);
      for (const r of c.ledger ?? []) addLedger.run(r);
      if (c.ledgerBefore !== undefined) pruneLedger.run(c.ledgerBefore);
    });
  }

  files(collector: string): FileRow[] {
    return (
      this.db
        .prepare(
          `SELECT path, collector, ino, size, mtime_ms AS mtimeMs, offset, state,
      head, head_length AS headLength, gone_ms AS goneMs, state_version AS stateVersion FROM files WHERE collector = ?`,
        )
        .all(collector) as FileRow[]
    ).map((r) => {
      if (r.goneMs === null) delete r.goneMs;
      if (r.stateVersion === null) delete r.stateVersion;
      return r;
    });
  }

  sessions(): { key: string; data: string }[] {
    return this.db.prepare('SELECT key, data FROM sessions').all() as { key: string; data: string }[];
  }

  /** Whether any file's offset is kept (false: nothing was read yet). */
  tracksFiles(): boolean {
    return this.db.prepare('SELECT 1 FROM files LIMIT 1').get() !== undefined;
  }

  counters(): CounterRow[] {
    return this.db.prepare('SELECT key, metric, labels, value FROM counters').all() as CounterRow[];
  }

  kv(): { key: string; value: string }[] {
    return this.db.prepare('SELECT key, value FROM kv').all() as { key: string; value: string }[];
  }

  /** The ledger's rows of the hours from `fromHour` up to (not including) `toHour`. */
  ledger(fromHour = 0, toHour = Number.MAX_SAFE_INTEGER): LedgerRow[] {
    return this.ledgerGet.all(fromHour, toHour) as LedgerRow[];
  }

  /** Whether a dedupe key was committed. */
  seen(key: string): boolean {
    return this.keyFilter().mayHave(key) && this.seenGet.get(key) !== undefined;
  }

  private keyFilter(): BloomFilter {
    if (this.seenKeys) return this.seenKeys;
    const { n } = this.db.prepare('SELECT count(*) AS n FROM seen').get() as { n: number };
    const filter = (this.seenKeys = new BloomFilter(2 * n));
    const keys = this.db.prepare('SELECT key FROM seen').pluck();
    for (const key of keys.iterate() as IterableIterator<string>) filter.add(key);
    return filter;
  }

  commit(changes: Changes): void {
    this.commitTx(changes);
  }

  /**
   * Once the history is read: a small page cache from now on (its pages freed). What follows writes
   * a few rows at a time, and SQLite's default cache otherwise stays filled with the pages the first
   * read wrote.
   */
  favourMemory(): void {
    this.db.pragma(`cache_size = -${SMALL_CACHE_KB}`);
    this.db.pragma('shrink_memory');
  }

  close(): void {
    this.db.close();
  }
}

function memoryDb(): Db {
  const db = openDatabase(':memory:');
  db.exec(SCHEMA);
  return db;
}

/**
 * Opens `<dir>/state.db`, created (0600) when there is none. A new database is made under another
 * name and renamed into place once its schema is written, so that a crash never leaves an empty
 * `state.db` behind: an empty one was emptied by something else, and stops start-up.
 */
function openFile(dir: string, reset: boolean): Db {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = statePath(dir);
  if (reset) for (const p of [path, `${path}-wal`, `${path}-shm`]) rmSync(p, { force: true });
  if (!existsSync(path)) {
    const fresh = `${path}.new`;
    for (const p of [fresh, `${fresh}-wal`, `${fresh}-shm`]) rmSync(p, { force: true });
    closeSync(openSync(fresh, 'wx', 0o600)); // SQLite gives its -wal and -shm the same mode
    const db = openDatabase(fresh);
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    db.close();
    renameSync(fresh, path);
  }
  const { db, version } = openChecked(path, {});
  try {
    // Nothing is written to a database before it is known to be ours.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, version);
    return db;
  } catch (e) {
    db.close();
    throw new StateError(path, `cannot be read (${(e as Error).message})`);
  }
}

/**
 * The state database at `path` opened and checked (check): every command that reads it (`serve`,
 * `once`, `top`, `report`) refuses one it cannot use with the same StateError, naming the file.
 */
function openChecked(path: string, options: { readonly?: boolean }): { db: Db; version: number } {
  if (statSync(path).size === 0) throw new StateError(path, 'is empty (0 bytes)');
  let db: Db | undefined;
  try {
    db = openDatabase(path, { ...options, fileMustExist: true });
    return { db, version: check(db, path) };
  } catch (e) {
    db?.close();
    if (e instanceof StateError) throw e;
    throw new StateError(path, `cannot be read (${(e as Error).message})`);
  }
}

/**
 * One value of the key-value table of the state database in `dir`, read-only and without loading
 * anything else (the statusline, which runs after every message beside a running exporter);
 * undefined when there is no database or no such row.
 */
export function readKvValue(dir: string, key: string): string | undefined {
  const path = statePath(dir);
  if (!existsSync(path)) return undefined;
  const db = openDatabase(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT value FROM kv WHERE key = ?').pluck().get(key) as string | undefined;
  } finally {
    db.close();
  }
}

/**
 * The key-value row that says a first read of the session files is under way (its start, in ms;
 * '' once done): what is committed then is a part, and `report` says so.
 */
export const FIRST_READ_KEY = 'first-read';

/**
 * What the `report` command reads of the state database in `dir`, read-only and beside a running
 * exporter (which owns the file), checked as at start-up (a StateError for one it cannot use): the
 * ledger's rows of the hours from `fromHour` up to `toHour` and, when asked, the sessions.
 * Undefined when there is no database, or one older than the ledger. `sum`: how the rows are
 * summed (none by default), given the first and last hour they span. `skipped`: the ledger's rows
 * left out as no row this exporter writes (plausibleLedgerRow). `firstReadSince`: a first read of
 * the files under way (or killed) since then.
 */
export function readReportState(
  dir: string,
  fromHour: number,
  toHour: number,
  withSessions: boolean,
  sum: (firstHour: number, lastHour: number) => LedgerSum = () => ({ quarters: 1 }),
):
  | { ledger: LedgerRow[]; skipped: number; sessions: { key: string; data: string }[]; firstReadSince?: number }
  | undefined {
  const path = statePath(dir);
  if (!existsSync(path)) return undefined;
  const { db, version } = openChecked(path, { readonly: true });
  try {
    if (version < 4) return undefined;
    const span = db
      .prepare('SELECT min(hour) AS first, max(hour) AS last FROM ledger WHERE hour >= ? AND hour < ?')
      .get(fromHour, toHour) as { first: number | null; last: number | null };
    // Schema 4 (a running exporter not upgraded yet): whole hours, read as their first quarter.
    const select =
      version < 5
        ? ledgerSelect('0')
        : span.first === null || span.last === null
          ? LEDGER_SELECT
          : ledgerSumSelect(sum(span.first, span.last));
    const rows = db.prepare(select).all(fromHour, toHour) as LedgerRow[];
    const ledger = rows.filter(plausibleLedgerRow);
    const reading = Number(db.prepare('SELECT value FROM kv WHERE key = ?').pluck().get(FIRST_READ_KEY) || 0);
    return {
      ...(reading > 0 ? { firstReadSince: reading } : {}),
      ledger,
      skipped: rows.length - ledger.length,
      sessions: withSessions
        ? (db.prepare('SELECT key, data FROM sessions').all() as { key: string; data: string }[])
        : [],
    };
  } finally {
    db.close();
  }
}

// The last hour a date can hold (8.64e15 ms).
const LAST_HOUR = 8.64e15 / 3_600_000;
const inDateRange = (ms: unknown) => typeof ms === 'number' && Math.abs(ms) <= 8.64e15;

/**
 * Whether a ledger row read back is one the exporter writes: SQLite keeps whatever a column is
 * given (a damaged or edited file), and a count of '0abc' or an hour no date holds printed
 * `"totalTokens": "0abc1e+300-5150"` and a day of NaN-NaN-NaN.
 */
function plausibleLedgerRow(r: LedgerRow): boolean {
  return (
    Number.isInteger(r.hour) &&
    r.hour >= 0 &&
    r.hour <= LAST_HOUR &&
    Number.isInteger(r.quarter) &&
    r.quarter >= 0 &&
    r.quarter <= 3 &&
    [r.harness, r.project, r.model].every((v) => typeof v === 'string') &&
    LEDGER_KEYS.every((k) =>
      k === 'costUsd' ? Number.isFinite(r[k]) && r[k] >= 0 : Number.isSafeInteger(r[k]) && r[k] >= 0,
    ) &&
    (r.firstMs === null || inDateRange(r.firstMs)) &&
    (r.lastMs === null || inDateRange(r.lastMs))
  );
}

/** The committed content of `<dir>/state.db`, checked as at start-up, as a private in-memory database. */
function memoryCopy(dir: string): Db {
  const path = statePath(dir);
  if (!existsSync(path)) return memoryDb();
  const { db: file, version } = openChecked(path, { readonly: true });
  try {
    const image = file.serialize();
    // The header's read and write versions say WAL (2), which an in-memory database cannot be: 1 is the rollback journal.
    image[18] = image[19] = 1;
    const db = openDatabase(image);
    migrate(db, version);
    return db;
  } catch (e) {
    throw new StateError(path, `cannot be read (${(e as Error).message})`);
  } finally {
    file.close();
  }
}

/** Brings a database of an older schema up to this one, in one transaction. */
function migrate(db: Db, version: number): void {
  if (version >= VERSION) return;
  db.transaction(() => {
    if (version < 2) db.exec('ALTER TABLE files ADD COLUMN gone_ms REAL');
    if (version < 3) db.exec('ALTER TABLE files ADD COLUMN state_version INTEGER');
    if (version < 4) db.exec(LEDGER);
    // A key cannot be altered: the ledger of whole hours is copied into a new one, each hour as its first quarter.
    else if (version < 5) {
      db.exec(`ALTER TABLE ledger RENAME TO ledger_hours; ${LEDGER};
        INSERT INTO ledger (hour, quarter, ${LEDGER_COLUMNS}) SELECT hour, 0, ${LEDGER_COLUMNS} FROM ledger_hours; DROP TABLE ledger_hours`);
    }
    db.exec(`PRAGMA user_version = ${VERSION}`);
  })();
}

/** Checks that the database is this exporter's and undamaged; returns its schema version. */
function check(db: Db, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > VERSION)
    throw new StateError(
      path,
      `was written by a newer version of the exporter (schema ${version}, this one knows ${VERSION})`,
    );
  for (const [table, columns] of Object.entries(version >= 4 ? { ...TABLES, ...LEDGER_TABLE } : TABLES)) {
    const have = new Set(
      (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((r) => r.name),
    );
    const missing = columns.filter((c) => !have.has(c));
    if (missing.length > 0)
      throw new StateError(
        path,
        `is not a state database of this exporter (table ${table} lacks ${missing.join(', ')})`,
      );
  }
  // Reading every table once finds a database damaged past its header now, not mid-scan. Not
  // through a memory map, though it took a third of the time: a disk's read error there is a
  // SIGBUS that kills the process, where a read gives an error to report. Through a page cache of
  // 64 KB, whose memory is used again and again: read into the default one (2 MB), every page of
  // the database landed in memory touched for the first time (15 ms of page faults for 2 MB here,
  // 5 ms this way) and stayed resident.
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = -${SMALL_CACHE_KB}`);
  const result = db.pragma('quick_check', { simple: true });
  db.pragma(`cache_size = ${cacheSize}`);
  // SQLite's report may span lines: the message stays one line.
  if (result !== 'ok') throw new StateError(path, `is damaged (${String(result).replace(/\s*\n\s*/g, ' ')})`);
  return version;
}
