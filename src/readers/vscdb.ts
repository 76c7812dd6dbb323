// VS Code's key-value `state.vscdb` (and its forks': Cursor's): tables `ItemTable` and, in
// Cursor, `cursorDiskKV`, each `(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`. Read-only, on
// a connection `readDatabase` (readers/sqlite.ts) opened. Keys are read by exact key or by key
// range, which the unique index answers (a `LIKE` prefix cannot use it); never the whole of
// `ItemTable`, which holds the editor's credentials (`cursorAuth/*`, secret-storage keys).
//
// A value is JSON, as TEXT or as a BLOB, which may hold invalid UTF-8 (read as U+FFFD) or raw
// control characters inside its strings (JSON.parse refuses them: they are read as spaces).

import { rowJson } from './document.js';
import { obj, type Json } from './fields.js';
import type { Db } from './sqlite.js';

export type Table = 'ItemTable' | 'cursorDiskKV';

/** The bounds of the keys starting with `prefix`: `key >= lo AND key < hi`. */
export function keyRange(prefix: string): [string, string] {
  const last = prefix.charCodeAt(prefix.length - 1);
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(last + 1)];
}

/** A value as text: TEXT as it is, a BLOB decoded as UTF-8. */
export function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  return undefined;
}

// Control characters JSON forbids inside a string.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL = /[\u0000-\u001f]/g;

/**
 * A value parsed as a JSON object, under a document's bound (document.ts: a chat's row can be as
 * large as a document); where it is none, why (a skip's reason).
 */
export function parsedValue(value: unknown): Json | 'parse_error' | 'file_too_large' {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) return 'parse_error';
  let parsed = rowJson(value);
  if (parsed === 'parse_error') parsed = rowJson(valueText(value)!.replace(CONTROL, ' '));
  if (typeof parsed === 'string') return parsed;
  return obj(parsed.value) ?? 'parse_error';
}

/** A value parsed as a JSON object, or undefined (as `parsedValue`). */
export function valueObject(value: unknown): Json | undefined {
  const parsed = parsedValue(value);
  return typeof parsed === 'string' ? undefined : parsed;
}

/** The value of one key, parsed (undefined when absent or not a JSON object). */
export function keyValue(db: Db, table: Table, key: string): Json | undefined {
  return valueObject(db.prepare(`SELECT value FROM ${table} WHERE key = ?`).pluck().get(key));
}

/** The keys starting with `prefix` and their values, one at a time (bounded memory), in key order. */
export function* prefixed(
  db: Db,
  table: Table,
  prefix: string,
  afterRowid = 0,
): Generator<{ key: string; value: unknown }> {
  const [lo, hi] = keyRange(prefix);
  // The rowid is in the key's index: rows not changed since `afterRowid` are passed over without their values.
  const rows = db
    .prepare(`SELECT key, value FROM ${table} WHERE key >= ? AND key < ? AND +rowid > ?`)
    .iterate(lo, hi, afterRowid);
  for (const row of rows as IterableIterator<{ key: unknown; value: unknown }>) {
    if (typeof row.key === 'string') yield { key: row.key, value: row.value };
  }
}

/** The keys starting with `prefix`, without their values (the index alone is read). */
export function* keysWithPrefix(db: Db, table: Table, prefix: string): Generator<string> {
  const [lo, hi] = keyRange(prefix);
  for (const key of db.prepare(`SELECT key FROM ${table} WHERE key >= ? AND key < ?`).pluck().iterate(lo, hi)) {
    if (typeof key === 'string') yield key;
  }
}

/**
 * Rows written since `afterRowid`: a table `UNIQUE ON CONFLICT REPLACE` gives a row rewritten a
 * new rowid, above every other, so that these are the rows changed since a read that saw rowids up
 * to `afterRowid` (their keys only: the values are read by whoever wants them).
 */
export function* keysAfter(db: Db, table: Table, afterRowid: number): Generator<string> {
  for (const key of db.prepare(`SELECT key FROM ${table} WHERE rowid > ?`).pluck().iterate(afterRowid)) {
    if (typeof key === 'string') yield key;
  }
}

/** The highest rowid of a table and its key (0 and undefined when empty). */
export function topRow(db: Db, table: Table): { rowid: number; key?: string } {
  const row = db.prepare(`SELECT rowid, key FROM ${table} ORDER BY rowid DESC LIMIT 1`).get() as
    { rowid: number; key: unknown } | undefined;
  return row ? { rowid: row.rowid, key: typeof row.key === 'string' ? row.key : undefined } : { rowid: 0 };
}

/** The key of the row `rowid` (undefined when there is none). */
export function keyAt(db: Db, table: Table, rowid: number): string | undefined {
  const key = db.prepare(`SELECT key FROM ${table} WHERE rowid = ?`).pluck().get(rowid);
  return typeof key === 'string' ? key : undefined;
}

/** Whether the database has a table (Cursor's `composerHeaders` came with 3.x). */
export function hasTable(db: Db, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}
