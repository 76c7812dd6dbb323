// Read-only access to a harness's SQLite database while the harness keeps writing to it.
//
// The database is opened read-only (SQLITE_OPEN_READONLY), and what SQLite opens beside it is:
// - A WAL database with no `-wal` (no writer has it open: OpenCode not running), or a `-wal` but no
//   `-shm` (no process has it open: every connection to a WAL database keeps the `-shm`): opened
//   `immutable`, nothing else is opened and nothing is created (a read-only connection would create
//   the `-shm`). Its whole content is in the main file, except in the second case the `-wal`'s
//   pages, which show once the harness opens the database again; its signature is compared after
//   the read, in case a writer started meanwhile.
// - A WAL database with its `-wal` and `-shm` (a writer has it open): the `-shm` is opened
//   read-only (`readonly_shm`: SQLite then reads the WAL's index into private memory where it
//   cannot take a read mark there), and the `-wal` read-write: SQLite opens it so whatever the
//   connection, no setting changes that. A read-only connection writes to neither (it cannot
//   write, checkpoint or delete the WAL); the tests check both are unchanged after a read.
// It is never copied: a copy of a harness's database (its prompts, its credentials) must not exist
// outside it.
//
// Nothing here waits long: SQLite's busy handler sleeps on the event loop, and with it every
// scrape. It is given a few milliseconds, which a writer's checkpoint takes; a database a writer
// holds locked for longer fails the read, and the next scan tries again.

import { closeSync, readSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { openRegular } from '../files/open.js';
import { openDatabase, type Db } from '../files/sqlite.js';

export type { Db };

// A change within this long of a read may share its mtime with an earlier one (coarse file system
// clocks), and a write into a reused WAL does not change its size: such a store is read again.
const SETTLE_MS = 2000;

/**
 * The size and mtime of a database and its `-wal` (no signature when the database is gone). The
 * store changed since a read that saw `previous` unless this is the same and old enough.
 */
export function storeChanged(path: string, previous: string | undefined): { changed: boolean; signature?: string } {
  let newest = 0;
  const part = (p: string) => {
    try {
      const st = statSync(p);
      newest = Math.max(newest, st.mtimeMs);
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  const db = part(path);
  if (db === '-') return { changed: false };
  const signature = `${db}/${part(`${path}-wal`)}`;
  return { changed: signature !== previous || Date.now() - newest < SETTLE_MS, signature };
}

/**
 * How to open a database: `immutable` where its header says WAL (file format versions 2 at
 * offsets 18 and 19) and no process has it open (no `-wal`, or no `-shm`); `wal` where a writer
 * may have it open; `plain` for a rollback-journal database. Throws unless the database, and its
 * `-wal` and `-shm` where they exist, are regular files: SQLite would block opening a FIFO.
 */
function openMode(path: string): 'immutable' | 'wal' | 'plain' {
  const header = Buffer.alloc(20);
  const fd = openRegular(path);
  try {
    /** Whether a companion exists: the one stat that also checks it is a regular file. */
    const exists = (companion: string): boolean => {
      const st = statSync(companion, { throwIfNoEntry: false });
      if (st && !st.isFile()) throw Object.assign(new Error(`not a regular file: ${companion}`), { code: 'ENOTREG' });
      return st !== undefined;
    };
    const wal = exists(`${path}-wal`);
    const shm = exists(`${path}-shm`);
    if (!(readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2)) return 'plain';
    return wal && shm ? 'wal' : 'immutable';
  } finally {
    closeSync(fd);
  }
}

// Errors a reader meets while a writer checkpoints or recovers the WAL; they pass on their own.
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|PROTOCOL|IOERR)/;
const ATTEMPTS = 2;
// The longest a read waits for a lock (SQLite's busy timeout), per attempt.
const BUSY_MS = 25;

/**
 * Runs `read` in one read transaction (a consistent snapshot) on a read-only connection. A
 * transient error (a concurrent checkpoint) is retried once; then the error is thrown and the
 * caller's next scan tries again. The connection is closed
 * before returning: holding it would keep the writer's checkpoints from completing.
 */
export function readDatabase<T>(path: string, read: (db: Db) => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return readOnce(path, read);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !TRANSIENT.test(code)) throw e;
    }
  }
}

/**
 * Reads the database with `read` when it changed since the read that kept `state.sig` (see
 * storeChanged); the new signature is kept only once the read succeeded. True when it was read.
 */
export function readChangedDatabase(path: string, state: { sig?: string }, read: (db: Db) => void): boolean {
  const { changed, signature } = storeChanged(path, state.sig);
  if (!changed) return false;
  readDatabase(path, read);
  state.sig = signature;
  return true;
}

function readOnce<T>(path: string, read: (db: Db) => T): T {
  const mode = openMode(path);
  const quiescent = mode === 'immutable';
  const before = quiescent ? storeChanged(path, undefined).signature : undefined;
  const name = mode === 'plain' ? path : `${pathToFileURL(path).href}?${quiescent ? 'immutable' : 'readonly_shm'}=1`;
  const db = openDatabase(name, { readonly: true, fileMustExist: true, timeout: BUSY_MS });
  try {
    const result = db.transaction(() => read(db))();
    // A writer that started (and checkpointed) during an immutable read may have torn it.
    if (quiescent && storeChanged(path, undefined).signature !== before) {
      throw Object.assign(new Error('database changed while it was read'), { code: 'SQLITE_BUSY_CHANGED' });
    }
    return result;
  } finally {
    db.close();
  }
}

/** The columns of a table (none when it does not exist): queries name only columns that exist. */
export function columnsOf(db: Db, table: string): Set<string> {
  const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

/** A SELECT list naming only the columns a table has (NULL for a missing one). */
export function selectList(have: Set<string>, wanted: readonly string[]): string {
  return wanted.map((c) => (have.has(c) ? c : `NULL AS ${c}`)).join(', ');
}

/**
 * The columns of a table, checked before any query names them: a table without one of `required`
 * fails the read with an error naming it (the collector fails, the exporter goes on).
 */
export function requireColumns(db: Db, table: string, required: readonly string[]): Set<string> {
  const have = columnsOf(db, table);
  const missing = required.find((c) => !have.has(c));
  if (missing !== undefined)
    throw new Error(
      have.size ? `table ${table} has no column ${missing}` : `no table ${table} (needs column ${missing})`,
    );
  return have;
}

// The latest time a Date can hold (ms): a later one is damage, not a time.
const LATEST_MS = 8.64e15;

/** A column holding Unix seconds (REAL or INTEGER), as milliseconds; undefined when not a number or past any date. */
export function secondsToMs(v: unknown): number | undefined {
  if (typeof v !== 'number' || !(v > 0)) return undefined;
  const ms = Math.round(v * 1000);
  return ms <= LATEST_MS ? ms : undefined;
}

/**
 * A row's Unix-seconds time as far as a read cursor may move to it: 0 for no time, and never past
 * now (one damaged row dated in the year 36812 would hide every later change).
 */
export function cursorSeconds(v: unknown, nowMs = Date.now()): number {
  return secondsToMs(v) === undefined ? 0 : Math.min(v as number, nowMs / 1000);
}

/** The same for a time already in milliseconds (a text timestamp, parsed). */
export function cursorMs(ms: number, nowMs = Date.now()): number {
  return Math.min(ms, nowMs);
}

/**
 * Rows by id through one prepared `SELECT … WHERE id = ?`, each read at most once for one read of
 * the database (a missing one too); `set` puts in a row a query already returned.
 */
export function rowsById<R>(
  db: Db,
  selectById: string,
): { get: (id: string) => R | undefined; set: (id: string, row: R) => void } {
  const byId = db.prepare(selectById);
  const rows = new Map<string, R | undefined>();
  return {
    get: (id) => {
      if (!rows.has(id)) rows.set(id, byId.get(id) as R | undefined);
      return rows.get(id);
    },
    set: (id, row) => void rows.set(id, row),
  };
}
