// Fixture databases written through the exporter's own SQLite engine (src/files/sqlite.ts): the
// tests run where better-sqlite3 is not installed (Node 24 and 26), and against each engine.

import { createRequire } from 'node:module';
import { openDatabase, type Db, type OpenOptions } from '../../src/files/sqlite.js';

export type Database = Db;

/** `new Database(path)` as with better-sqlite3, through the engine in use. */
export const Database = function (name: string, options?: OpenOptions): Db {
  return openDatabase(name, options);
} as unknown as new (name: string, options?: OpenOptions) => Db;

const betterPath = (() => {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return '';
  }
})();

/**
 * The start of a child process's script (another process writing a database, as a harness does):
 * `open(path, { timeout })` gives a connection with `exec`, `prepare` and `pragma`, of Node's
 * SQLite where it has one (and CODING_AGENT_EXPORTER_SQLITE is not `better`), else better-sqlite3.
 */
export const CHILD_OPEN = `
  const open = (path, options = {}) => {
    if (process.env.CODING_AGENT_EXPORTER_SQLITE !== 'better') {
      try {
        process.removeAllListeners('warning');
        const { DatabaseSync } = require('node:sqlite');
        const db = new DatabaseSync(path, { timeout: options.timeout ?? 5000 });
        db.pragma = (source) => db.prepare('PRAGMA ' + source).all();
        return db;
      } catch (e) {
        if (e.code !== 'ERR_UNKNOWN_BUILTIN_MODULE') throw e;
      }
    }
    return new (require(${JSON.stringify(betterPath)}))(path, options);
  };
`;
