// Read-only access to a harness's SQLite database while the harness keeps writing to it.
//
// better-sqlite3 is built without URI filenames, so `mode=ro` is spelled as its `readonly`
// option (the same SQLITE_OPEN_READONLY flag); `immutable` is never used, since it would hide the
// rows still in the `-wal`. A read-only connection to a WAL database whose `-wal` does not exist
// (no writer has it open) would create the `-wal` and `-shm` beside it: such a database is
// quiescent, so it is read from a private copy instead and the harness's folder is left as it was.

import Database from 'better-sqlite3';
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFile } from './dir.js';

export type Db = Database.Database;

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

/** Whether the database header says WAL (file format versions 2 at offsets 18 and 19). */
function walMode(path: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2;
  } finally {
    closeSync(fd);
  }
}

// Errors a reader meets while a writer checkpoints or recovers the WAL; they pass on their own.
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|PROTOCOL|IOERR)/;
const ATTEMPTS = 4;

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `read` in one read transaction (a consistent snapshot) on a read-only connection, retrying
 * the transient errors of a concurrent checkpoint a few times before giving up (the caller's next
 * scan tries again). The connection is closed before returning: holding it would keep the
 * writer's checkpoints from completing.
 */
export function readDatabase<T>(path: string, read: (db: Db) => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return readOnce(path, read);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !TRANSIENT.test(code)) throw e;
      pause(25 * attempt);
    }
  }
}

function readOnce<T>(path: string, read: (db: Db) => T): T {
  let copyDir: string | undefined;
  let file = path;
  if (walMode(path) && !isFile(`${path}-wal`)) {
    copyDir = mkdtempSync(join(tmpdir(), 'cae-db-'));
    file = join(copyDir, 'copy.db');
    const before = storeChanged(path, undefined).signature;
    copyFileSync(path, file);
    // A writer that started and checkpointed during the copy may have torn it.
    if (storeChanged(path, undefined).signature !== before) {
      rmSync(copyDir, { recursive: true, force: true });
      throw Object.assign(new Error('database changed while it was copied'), { code: 'SQLITE_BUSY_COPY' });
    }
  }
  // A short busy timeout: the read blocks the event loop while it waits.
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 200 });
  try {
    return db.transaction(() => read(db))();
  } finally {
    db.close();
    if (copyDir) rmSync(copyDir, { recursive: true, force: true });
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
  if (missing !== undefined) throw new Error(have.size ? `table ${table} has no column ${missing}` : `no table ${table} (needs column ${missing})`);
  return have;
}

/** A column holding Unix seconds (REAL or INTEGER), as milliseconds; undefined when not a number. */
export function secondsToMs(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v * 1000) : undefined;
}
