// Builds OpenCode databases row by row for reader tests, with the columns OpenCode 1.x and 2.x
// write (only those the tests need; OpenCode's own tables have more).

import { Database } from './sqlite.js';
import { join } from 'node:path';
import { tempDir } from './run.js';

export const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

const V1 = `
  CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, title TEXT,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
  CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, data TEXT NOT NULL);
  CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
  CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
  CREATE INDEX part_session_idx ON part (session_id);
  CREATE TABLE todo (session_id TEXT NOT NULL, position INTEGER NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL,
    priority TEXT NOT NULL, PRIMARY KEY (session_id, position));`;

const V2 = `
  CREATE TABLE session_v2 (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, title TEXT,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_idle INTEGER, time_viewed INTEGER,
    idle_outcome TEXT, time_suspended INTEGER);
  CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL,
    seq INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`;

export const tokens = (input: number, output: number, reasoning: number, read: number, write = 0, total?: number) => ({
  ...(total !== undefined ? { total } : {}),
  input,
  output,
  reasoning,
  cache: { read, write },
});

export class OpenCodeDb {
  readonly path: string;
  readonly db: Database;

  constructor(opts: { v2?: boolean; wal?: boolean; schema?: string; path?: string } = {}) {
    this.path = opts.path ?? join(tempDir(), 'opencode.db');
    this.db = new Database(this.path);
    if (opts.wal) this.db.pragma('journal_mode = WAL');
    this.db.exec(opts.schema ?? V1);
    if (opts.v2) this.db.exec(V2);
  }

  session(id: string, t: number, opts: { parent?: string; directory?: string; table?: string } = {}): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO ${opts.table ?? 'session'} (id, parent_id, directory, time_created, time_updated) VALUES (?, ?, ?, ?, ?)`,
      )
      .run(id, opts.parent ?? null, opts.directory ?? '/src/app', T0, T0 + t);
  }

  message(session: string, id: string, t: number, data: object, updated = t): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
      )
      .run(id, session, T0 + t, T0 + updated, JSON.stringify(data));
    this.touch(session, updated);
  }

  user(session: string, id: string, t: number, text = 'do it'): void {
    this.message(session, id, t, { role: 'user', time: { created: T0 + t } });
    this.part(session, id, `${id}-text`, t, { type: 'text', text });
  }

  assistant(session: string, id: string, t: number, extra: object = {}): void {
    this.message(session, id, t, {
      role: 'assistant',
      parentID: 'u',
      modelID: 'claude-sonnet-4-5',
      providerID: 'anthropic',
      time: { created: T0 + t },
      ...extra,
    });
  }

  part(session: string, message: string, id: string, t: number, data: object, updated = t): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(id, message, session, T0 + t, T0 + updated, JSON.stringify(data));
  }

  /** A session row is touched when a message is written (not when a part streams). */
  touch(session: string, t: number, table = 'session'): void {
    this.db.prepare(`UPDATE ${table} SET time_updated = max(time_updated, ?) WHERE id = ?`).run(T0 + t, session);
  }

  row(session: string, id: string, type: string, seq: number, t: number, data: object, updated = t): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, session, type, seq, T0 + t, T0 + updated, JSON.stringify(data));
    this.touch(session, updated, 'session_v2');
  }

  close(): void {
    this.db.close();
  }
}
