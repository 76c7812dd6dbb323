// The one interface over both SQLite engines: what the exporter relies on behaves the same through
// each. CI runs this file on Node.js 20 and 22 (better-sqlite3) and on 24 and 26 (node:sqlite).

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { engine, openDatabase, withoutSqliteWarning } from '../../src/files/sqlite.js';
import { CHILD_OPEN } from '../helpers/sqlite.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cae-sqlite-'));

describe(`SQLite through ${engine}`, () => {
  it("is Node's own where it has one with serialize(), better-sqlite3 only where not, or as CODING_AGENT_EXPORTER_SQLITE says", async () => {
    const wanted = process.env.CODING_AGENT_EXPORTER_SQLITE;
    let hasSerialize = false;
    try {
      const name = 'node:sqlite'; // not a literal: Node 20's type definitions have no such module
      const sqlite = (await import(name)) as { DatabaseSync: { prototype: { serialize?: unknown } } };
      hasSerialize = typeof sqlite.DatabaseSync.prototype.serialize === 'function';
    } catch {
      // Node 20
    }
    expect(engine).toBe(wanted === 'better' || !hasSerialize ? 'better-sqlite3' : 'node:sqlite');
  });

  it("loads without printing SQLite's ExperimentalWarning (Node 22), every other warning passed on", async () => {
    const seen: string[] = [];
    const listen = (w: Error) => seen.push(`${w.name}: ${w.message}`);
    process.on('warning', listen);
    try {
      withoutSqliteWarning(() => {
        process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
        process.emitWarning('Something else is experimental', 'ExperimentalWarning');
        process.emitWarning('SQLite: something else', 'DeprecationWarning');
      });
      process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(seen).toEqual([
      'ExperimentalWarning: Something else is experimental',
      'DeprecationWarning: SQLite: something else',
      'ExperimentalWarning: SQLite is an experimental feature and might change at any time',
    ]);
  });

  it('binds named parameters from an object (undefined as NULL), positional ones in order', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c REAL)');
    const put = db.prepare('INSERT INTO t (a, b, c) VALUES (@a, @b, @c)');
    put.run({ a: 1, b: 'x', c: 1.5 });
    put.run({ a: 2, b: undefined, c: null });
    db.prepare('INSERT INTO t VALUES (?, ?, ?)').run(3, 'z', 2);
    expect(db.prepare('SELECT a, b, c FROM t ORDER BY a').all()).toEqual([
      { a: 1, b: 'x', c: 1.5 },
      { a: 2, b: null, c: null },
      { a: 3, b: 'z', c: 2 },
    ]);
    expect(db.prepare('SELECT b FROM t WHERE a = ?').pluck().get(3)).toBe('z');
    expect(db.prepare('SELECT b FROM t WHERE a = ?').pluck().get(9)).toBeUndefined();
    expect([...db.prepare('SELECT a FROM t ORDER BY a').pluck().iterate()]).toEqual([1, 2, 3]);
    db.close();
  });

  it('gives a BLOB as a Buffer, and pragmas as rows or, simple, as a value', () => {
    const db = openDatabase(':memory:');
    const blob = db.prepare("SELECT x'0102ff' AS v").pluck().get();
    expect(Buffer.isBuffer(blob)).toBe(true);
    expect([...(blob as Buffer)]).toEqual([1, 2, 255]);
    db.pragma('user_version = 7');
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.pragma('user_version')).toEqual([{ user_version: 7 }]);
    db.close();
  });

  it('reads an integer past 2^53 of a read-only database as the nearest number, not an error', () => {
    const path = join(tmp(), 'a.db');
    const w = openDatabase(path);
    w.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (9223372036854775807), (-9223372036854775808), (7)');
    w.close();
    const r = openDatabase(path, { readonly: true });
    expect(r.prepare('SELECT n FROM t').pluck().all()).toEqual([2 ** 63, -(2 ** 63), 7]);
    expect(r.prepare('SELECT n FROM t').all()).toEqual([{ n: 2 ** 63 }, { n: -(2 ** 63) }, { n: 7 }]);
    r.close();
  });

  it('commits a transaction whole, or rolls it back whole when it throws', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY)');
    const put = db.prepare('INSERT INTO t VALUES (?)');
    const tx = db.transaction((xs: number[]) => {
      for (const x of xs) put.run(x);
    });
    tx([1, 2]);
    expect(() => tx([3, 1])).toThrow();
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT a FROM t').pluck().all()).toEqual([1, 2]);
    db.close();
  });

  it('opens an image from serialize() in memory, writable, the file untouched', () => {
    const dir = tmp();
    const file = openDatabase(join(dir, 'a.db'));
    file.exec("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x')");
    const copy = openDatabase(file.serialize());
    copy.exec("INSERT INTO t VALUES ('y')");
    expect(copy.prepare('SELECT a FROM t').pluck().all()).toEqual(['x', 'y']);
    expect(file.prepare('SELECT a FROM t').pluck().all()).toEqual(['x']);
    copy.close();
    file.close();
  });

  it('opens read-only, by a file: URI (immutable), and never creates a missing file', () => {
    const dir = tmp();
    const path = join(dir, 'a.db');
    expect(() => openDatabase(path, { fileMustExist: true })).toThrow();
    expect(() => openDatabase(path, { readonly: true, fileMustExist: true })).toThrow();
    const w = openDatabase(path);
    w.exec("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x')");
    w.close();
    const r = openDatabase(`${pathToFileURL(path).href}?immutable=1`, { readonly: true, fileMustExist: true });
    expect(r.prepare('SELECT a FROM t').pluck().get()).toBe('x');
    expect(() => r.exec("INSERT INTO t VALUES ('y')")).toThrow(/readonly/i);
    r.close();
  });

  it("names SQLite's errors as better-sqlite3 does: SQLITE_BUSY within the busy timeout, SQLITE_CONSTRAINT_…, SQLITE_NOTADB", async () => {
    const dir = tmp();
    const path = join(dir, 'a.db');
    openDatabase(path).exec('CREATE TABLE t (a INTEGER PRIMARY KEY)');
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as { code?: unknown }).code;
      }
      return undefined;
    };
    const db = openDatabase(path, { timeout: 10 });
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(code(() => db.prepare('INSERT INTO t VALUES (1)').run())).toMatch(/^SQLITE_CONSTRAINT/);
    const locker = spawn(
      process.execPath,
      [
        '-e',
        `${CHILD_OPEN}
      const db = open(${JSON.stringify(path)});
      db.exec('BEGIN EXCLUSIVE');
      console.log('locked');
      process.stdin.once('data', () => process.exit(0));
    `,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => locker.stdout.once('data', () => resolve()));
      expect(code(() => db.prepare('SELECT * FROM t').all())).toBe('SQLITE_BUSY');
    } finally {
      locker.stdin.write('go\n');
      db.close();
    }
    const junk = join(dir, 'junk.db');
    writeFileSync(
      junk,
      'not a database, not a database, not a database, not a database, not a database, not a database!',
    );
    expect(code(() => openDatabase(junk, { readonly: true }).prepare('SELECT 1 FROM sqlite_master').get())).toBe(
      'SQLITE_NOTADB',
    );
  });
});
