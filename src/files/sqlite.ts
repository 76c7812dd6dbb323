// SQLite, through the engine this Node.js has: its built-in `node:sqlite` where that has all the
// exporter uses (Node 24 and 26: no compiler, no download at install), else better-sqlite3 (an
// optional dependency: Node 20 and 22, whose `node:sqlite` is missing or lacks `serialize`). Both
// are reached through `Db` below, the subset of better-sqlite3's API the exporter uses, so that the
// state database and the readers do not know which one runs. `CODING_AGENT_EXPORTER_SQLITE=better`
// (or `node`) chooses one (the tests run against each).

import type BetterSqlite3 from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';

export interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** The same statement, returning each row's first column alone. */
  pluck(): Statement;
}

export interface Db {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of its first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** `fn` wrapped in BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /** The database's image, as `openDatabase` takes it back. */
  serialize(): Uint8Array;
  /** Whether a transaction is open. */
  readonly inTransaction: boolean;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
  /** The busy timeout (ms). */
  timeout?: number;
}

export type Engine = 'node:sqlite' | 'better-sqlite3';

const require = createRequire(import.meta.url);

// What is used of `node:sqlite` (Node 20's type definitions, which the exporter builds with, have none).
interface NodeStatementSync {
  setReadBigInts(enabled: boolean): void;
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface DatabaseSync {
  readonly isTransaction: boolean;
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  serialize(): Uint8Array;
  deserialize(image: Uint8Array): void;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: {
    new (path: string, options?: { readOnly?: boolean; timeout?: number }): DatabaseSync;
    prototype: Partial<DatabaseSync>;
  };
  StatementSync: { prototype: Partial<NodeStatementSync> };
}

/**
 * `load()`, with the ExperimentalWarning about SQLite it may emit (Node 22 prints one at the first
 * load of `node:sqlite`) kept from the user's terminal; every other warning passed on.
 */
export function withoutSqliteWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if ((type ?? (warning as Error).name) === 'ExperimentalWarning' && /SQLite/i.test(String(warning))) return;
    (emitWarning as (...a: unknown[]) => void).call(this, warning, ...rest);
  };
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** `node:sqlite`, where it has everything used here. */
function nodeSqlite(): NodeSqlite | undefined {
  // Node 20 has none: not required, which would throw (an error whose message takes 3 ms to make).
  if (!isBuiltin('node:sqlite')) return undefined;
  try {
    const sqlite = withoutSqliteWarning(() => require('node:sqlite') as NodeSqlite);
    const db = sqlite.DatabaseSync.prototype;
    return typeof db.serialize === 'function' &&
      typeof db.deserialize === 'function' &&
      typeof sqlite.StatementSync.prototype.iterate === 'function'
      ? sqlite
      : undefined;
  } catch {
    return undefined; // Node 20, or 22 before 22.13
  }
}

const wanted = process.env.CODING_AGENT_EXPORTER_SQLITE;
if (wanted !== undefined && wanted !== '' && wanted !== 'node' && wanted !== 'better') {
  throw new Error(`CODING_AGENT_EXPORTER_SQLITE=${wanted}: expected node or better`);
}
const builtIn = wanted === 'better' ? undefined : nodeSqlite();
if (wanted === 'node' && !builtIn)
  throw new Error(`CODING_AGENT_EXPORTER_SQLITE=node: Node.js ${process.version} has no node:sqlite with serialize()`);

/** The engine in use. */
export const engine: Engine = builtIn ? 'node:sqlite' : 'better-sqlite3';

let better: typeof BetterSqlite3 | undefined;
let nativeBinding: string | undefined;

/** better-sqlite3, required on its first use (a CommonJS package: `require` skips `import`'s scan for named exports). */
function betterSqlite3(): typeof BetterSqlite3 {
  if (better) return better;
  // better-sqlite3 reads this once, when its native part loads: URI file names are how SQLite
  // takes `immutable` (readers/sqlite.ts). Plain paths keep their meaning. (Node's SQLite takes them always.)
  process.env.SQLITE_USE_URI = '1';
  try {
    better = require('better-sqlite3') as typeof BetterSqlite3;
  } catch (e) {
    throw new Error(
      `Node.js ${process.version} has no node:sqlite with serialize(), and better-sqlite3 is not installed (${(e as Error).message.split('\n')[0]}): run npm install on this Node.js, with a C++ compiler where no prebuilt binary downloads`,
    );
  }
  // Its native part loaded by its path rather than found by the `bindings` package (two more
  // modules and a dozen paths tried: 10 ms of every start); where its install put it elsewhere, found as before.
  try {
    nativeBinding = require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    nativeBinding = undefined;
  }
  return better;
}

/** Opens a database: a path, a `file:` URI, `':memory:'`, or an image from `serialize()` (in memory). */
export function openDatabase(name: string | Uint8Array, options: OpenOptions = {}): Db {
  if (!builtIn) {
    const Database = betterSqlite3();
    return new Database(typeof name === 'string' ? name : Buffer.from(name.buffer, name.byteOffset, name.byteLength), {
      ...options,
      nativeBinding,
    });
  }
  if (typeof name !== 'string') {
    const db = new builtIn.DatabaseSync(':memory:');
    guard(() => db.deserialize(name));
    return new NodeDb(db);
  }
  // better-sqlite3's `fileMustExist`: SQLite itself creates a missing file unless read-only.
  if (
    options.fileMustExist &&
    !options.readonly &&
    !name.startsWith('file:') &&
    name !== ':memory:' &&
    !existsSync(name)
  ) {
    throw Object.assign(new Error(`unable to open database file: ${name}`), { code: 'SQLITE_CANTOPEN' });
  }
  // better-sqlite3's default busy timeout, 5 s.
  const sqlite = builtIn;
  const readonly = options.readonly ?? false;
  return new NodeDb(
    guard(() => new sqlite.DatabaseSync(name, { readOnly: readonly, timeout: options.timeout ?? 5000 })),
    readonly,
  );
}

// SQLite's primary result codes by number: node:sqlite gives the number, better-sqlite3 the name,
// which is what callers test (`SQLITE_BUSY`, …), extended codes by their prefix.
const CODES: Record<number, string> = {
  1: 'ERROR',
  2: 'INTERNAL',
  3: 'PERM',
  4: 'ABORT',
  5: 'BUSY',
  6: 'LOCKED',
  7: 'NOMEM',
  8: 'READONLY',
  9: 'INTERRUPT',
  10: 'IOERR',
  11: 'CORRUPT',
  12: 'NOTFOUND',
  13: 'FULL',
  14: 'CANTOPEN',
  15: 'PROTOCOL',
  16: 'EMPTY',
  17: 'SCHEMA',
  18: 'TOOBIG',
  19: 'CONSTRAINT',
  20: 'MISMATCH',
  21: 'MISUSE',
  22: 'NOLFS',
  23: 'AUTH',
  24: 'FORMAT',
  25: 'RANGE',
  26: 'NOTADB',
};

/** A node:sqlite error with better-sqlite3's `code` (`SQLITE_<NAME>`); any other error as it is. */
function named(e: unknown): unknown {
  const err = e as { code?: unknown; errcode?: unknown };
  if (typeof err?.errcode === 'number' && typeof err.code === 'string' && err.code.startsWith('ERR_SQLITE')) {
    const name = CODES[err.errcode & 0xff];
    if (name) err.code = `SQLITE_${name}`;
  }
  return e;
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw named(e);
  }
}

/**
 * Parameters as better-sqlite3 binds them: `undefined` as NULL, a named parameter's object too
 * (Node's SQLite refuses `undefined`).
 */
function bindable(params: unknown[]): unknown[] {
  return params.map((p) => {
    if (p === undefined) return null;
    if (p === null || typeof p !== 'object' || p instanceof Uint8Array) return p;
    const values = p as Record<string, unknown>;
    for (const k in values) {
      if (values[k] === undefined)
        return Object.fromEntries(Object.entries(values).map(([key, v]) => [key, v ?? null]));
    }
    return p;
  });
}

/**
 * A row as better-sqlite3 gives it: a BLOB as a Buffer (Node's SQLite gives a Uint8Array), an
 * integer past 2^53 as the nearest number (read as a BigInt: Node's SQLite throws on it as a number,
 * and one damaged row of a harness's database would fail the whole read).
 */
function row(value: unknown): unknown {
  if (value === undefined) return value;
  const cells = value as Record<string, unknown>;
  for (const k in cells) {
    const cell = cells[k];
    if (typeof cell === 'bigint') cells[k] = Number(cell);
    else if (cell instanceof Uint8Array) cells[k] = Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength);
  }
  return cells;
}

class NodeStatement implements Statement {
  constructor(
    private readonly stmt: NodeStatementSync,
    private readonly plucked = false,
  ) {}

  private out(value: unknown): unknown {
    const r = row(value);
    return this.plucked && r !== undefined ? Object.values(r as object)[0] : r;
  }

  run(...params: unknown[]): unknown {
    return guard(() => this.stmt.run(...bindable(params)));
  }

  get(...params: unknown[]): unknown {
    return this.out(guard(() => this.stmt.get(...bindable(params))));
  }

  all(...params: unknown[]): unknown[] {
    return guard(() => this.stmt.all(...bindable(params))).map((r) => this.out(r));
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    const rows = guard(() => this.stmt.iterate(...bindable(params)));
    for (;;) {
      const next = guard(() => rows.next());
      if (next.done) return;
      yield this.out(next.value);
    }
  }

  pluck(): Statement {
    return new NodeStatement(this.stmt, true);
  }
}

class NodeDb implements Db {
  /** `bigInts`: integers read as BigInt (see row()): a harness's database, read-only, may hold any. */
  constructor(
    private readonly db: DatabaseSync,
    private readonly bigInts = false,
  ) {}

  prepare(sql: string): Statement {
    const stmt = guard(() => this.db.prepare(sql));
    if (this.bigInts) stmt.setReadBigInts(true);
    return new NodeStatement(stmt);
  }

  exec(sql: string): void {
    guard(() => this.db.exec(sql));
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const stmt = this.prepare(`PRAGMA ${source}`);
    return options.simple ? stmt.pluck().get() : stmt.all();
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      this.exec('BEGIN');
      try {
        const result = fn(...args);
        this.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.isTransaction) this.exec('ROLLBACK');
        throw e;
      }
    };
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  serialize(): Uint8Array {
    return guard(() => this.db.serialize());
  }

  close(): void {
    this.db.close();
  }
}
