// The exporter's own state: how far each file was read, what each reader's parser knew there, the
// sessions, every counter's total, and the dedupe keys. Everything a scan changes is committed in
// one transaction, so a crash (even kill -9 mid-scan) restarts from a consistent point and re-reads
// the uncommitted bytes: totals come out the same and never go backwards.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BloomFilter } from './bloom.js';

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
  /** Hash of the file's first `headLength` bytes: tells a rewritten file from a new one. */
  head?: string;
  headLength?: number;
}

export interface CounterRow {
  key: string;
  metric: string;
  labels: string;
  value: number;
}

export interface Changes {
  files: FileRow[];
  removedFiles: string[];
  sessions: { key: string; data: string }[];
  counters: CounterRow[];
  /** Dedupe keys first seen (each `<collector>\0<key>`). */
  seen: string[];
  kv: { key: string; value: string }[];
}

export class StateDb {
  private readonly db: Database.Database;
  private readonly seenGet: Database.Statement<[string], unknown>;
  private readonly commitTx: (c: Changes) => void;
  /** Every key in `seen`, so that lookups of new keys need no query. */
  private readonly seenKeys: BloomFilter;

  /**
   * `privateCopy`: the state database is read once, read-only, into memory and never written
   * (`top` beside a running `serve`, which owns the file): it starts from what was committed and
   * keeps its own changes to itself.
   */
  constructor(dir: string | ':memory:', opts: { privateCopy?: boolean } = {}) {
    if (opts.privateCopy) this.db = new Database(dir === ':memory:' ? dir : memoryCopy(join(dir, 'state.db')));
    else {
      if (dir !== ':memory:') mkdirSync(dir, { recursive: true });
      this.db = new Database(dir === ':memory:' ? dir : join(dir, 'state.db'));
    }
    if (!opts.privateCopy) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, collector TEXT NOT NULL, ino INTEGER NOT NULL,
        size INTEGER NOT NULL, mtime_ms REAL NOT NULL, offset INTEGER NOT NULL, state TEXT NOT NULL,
        head TEXT, head_length INTEGER);
      CREATE TABLE IF NOT EXISTS sessions (key TEXT PRIMARY KEY, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, metric TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL);
      CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
    this.seenGet = this.db.prepare('SELECT 1 FROM seen WHERE key = ?');
    const { n } = this.db.prepare('SELECT count(*) AS n FROM seen').get() as { n: number };
    this.seenKeys = new BloomFilter(2 * n);
    const keys = this.db.prepare('SELECT key FROM seen').pluck() as Database.Statement<[], string>;
    for (const key of keys.iterate()) this.seenKeys.add(key);
    const putFile = this.db.prepare(`INSERT OR REPLACE INTO files (path, collector, ino, size, mtime_ms, offset, state, head, head_length)
      VALUES (@path, @collector, @ino, @size, @mtimeMs, @offset, @state, @head, @headLength)`);
    const delFile = this.db.prepare('DELETE FROM files WHERE path = ?');
    const putSession = this.db.prepare('INSERT OR REPLACE INTO sessions (key, data) VALUES (@key, @data)');
    const putCounter = this.db.prepare('INSERT OR REPLACE INTO counters (key, metric, labels, value) VALUES (@key, @metric, @labels, @value)');
    const putSeen = this.db.prepare('INSERT OR IGNORE INTO seen (key) VALUES (?)');
    const putKv = this.db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (@key, @value)');
    this.commitTx = this.db.transaction((c: Changes) => {
      for (const f of c.files) putFile.run({ head: null, headLength: null, ...f });
      for (const p of c.removedFiles) delFile.run(p);
      for (const s of c.sessions) putSession.run(s);
      for (const r of c.counters) putCounter.run(r);
      for (const key of c.seen) {
        putSeen.run(key);
        this.seenKeys.add(key);
      }
      for (const k of c.kv) putKv.run(k);
    });
  }

  files(collector: string): FileRow[] {
    return this.db.prepare(`SELECT path, collector, ino, size, mtime_ms AS mtimeMs, offset, state,
      head, head_length AS headLength FROM files WHERE collector = ?`).all(collector) as FileRow[];
  }

  sessions(): { key: string; data: string }[] {
    return this.db.prepare('SELECT key, data FROM sessions').all() as { key: string; data: string }[];
  }

  counters(): CounterRow[] {
    return this.db.prepare('SELECT key, metric, labels, value FROM counters').all() as CounterRow[];
  }

  kv(): { key: string; value: string }[] {
    return this.db.prepare('SELECT key, value FROM kv').all() as { key: string; value: string }[];
  }

  /** Whether a dedupe key was committed. */
  seen(key: string): boolean {
    return this.seenKeys.mayHave(key) && this.seenGet.get(key) !== undefined;
  }

  commit(changes: Changes): void {
    this.commitTx(changes);
  }

  close(): void {
    this.db.close();
  }
}

/** The committed content of a database file as an in-memory image, or an empty one when there is none. */
function memoryCopy(path: string): Buffer | ':memory:' {
  if (!existsSync(path)) return ':memory:';
  const file = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const image = file.serialize();
    // The header's read and write versions say WAL (2), which an in-memory database cannot be: 1 is the rollback journal.
    image[18] = image[19] = 1;
    return image;
  } finally {
    file.close();
  }
}
