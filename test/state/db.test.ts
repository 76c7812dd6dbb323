// The state database is the only memory of what was counted: it is created private, an older one
// is upgraded, and one that cannot be used stops start-up instead of being replaced in silence.

import { Database } from '../helpers/sqlite.js';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReportState, StateDb } from '../../src/state/db.js';
import { envFor, FIXTURES, run, tempDir } from '../helpers/run.js';

// The tables of a schema of version 3 (no ledger), which the upgrades below start from.
const TABLES_OF_VERSION_3 = `CREATE TABLE files (path TEXT PRIMARY KEY, collector TEXT NOT NULL, ino INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime_ms REAL NOT NULL, offset INTEGER NOT NULL, state TEXT NOT NULL, head TEXT, head_length INTEGER,
    gone_ms REAL, state_version INTEGER);
  CREATE TABLE sessions (key TEXT PRIMARY KEY, data TEXT NOT NULL);
  CREATE TABLE counters (key TEXT PRIMARY KEY, metric TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL);
  CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);`;

const row = { path: '/h/a.jsonl', collector: 'c', ino: 1, size: 10, mtimeMs: 1, offset: 10, state: '{}' };

describe('state database', () => {
  it('is created readable by its owner only, its -wal too', () => {
    const dir = tempDir();
    const db = new StateDb(dir);
    db.commit({ files: [row], removedFiles: [], sessions: [], counters: [], kv: [], seen: [] });
    expect(statSync(join(dir, 'state.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state.db-wal')).mode & 0o777).toBe(0o600);
    db.close();
  });

  it('upgrades the schema written before versions, keeping its rows', () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'state.db'));
    old.exec(`CREATE TABLE files (path TEXT PRIMARY KEY, collector TEXT NOT NULL, ino INTEGER NOT NULL,
        size INTEGER NOT NULL, mtime_ms REAL NOT NULL, offset INTEGER NOT NULL, state TEXT NOT NULL, head TEXT, head_length INTEGER);
      CREATE TABLE sessions (key TEXT PRIMARY KEY, data TEXT NOT NULL);
      CREATE TABLE counters (key TEXT PRIMARY KEY, metric TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL);
      CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO files VALUES ('/h/a.jsonl', 'c', 1, 10, 1, 10, '{}', NULL, NULL);`);
    old.close();
    const db = new StateDb(dir);
    expect(db.files('c')).toMatchObject([{ path: '/h/a.jsonl', offset: 10 }]);
    db.commit({ files: [{ ...row, goneMs: 5 }], removedFiles: [], sessions: [], counters: [], kv: [], seen: [] });
    expect(db.files('c')[0]!.goneMs).toBe(5);
    db.close();
  });

  it('upgrades a schema of version 3 in place with an empty ledger, which then adds up and prunes', () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'state.db'));
    old.exec(`${TABLES_OF_VERSION_3}
            INSERT INTO counters VALUES ('k', 'tokens', '{}', 42);
      PRAGMA user_version = 3;`);
    old.close();
    const db = new StateDb(dir);
    expect(db.counters()).toMatchObject([{ key: 'k', value: 42 }]);
    expect(db.ledger()).toEqual([]);
    const hour = {
      quarter: 0,
      harness: 'codex',
      project: 'p',
      model: 'm',
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheWrite: 4,
      reasoning: 1,
      costUsd: 0.5,
      requests: 1,
      sessions: 1,
      turnsCompleted: 0,
      turnsFailed: 0,
      turnsInterrupted: 0,
    };
    const empty = { files: [], removedFiles: [], sessions: [], counters: [], kv: [], seen: [] };
    db.commit({
      ...empty,
      ledger: [
        { ...hour, hour: 10, firstMs: 36_000_500, lastMs: 36_000_900 },
        { ...hour, hour: 11, firstMs: 39_600_000, lastMs: 39_600_000 },
      ],
    });
    db.commit({ ...empty, ledger: [{ ...hour, hour: 10, sessions: 0, firstMs: 36_000_100, lastMs: 36_000_200 }] });
    expect(db.ledger(10, 11)).toEqual([
      {
        ...hour,
        hour: 10,
        input: 2,
        output: 4,
        cacheRead: 6,
        cacheWrite: 8,
        reasoning: 2,
        costUsd: 1,
        requests: 2,
        firstMs: 36_000_100,
        lastMs: 36_000_900,
      },
    ]);
    db.commit({ ...empty, ledgerBefore: 11 });
    expect(db.ledger().map((r) => r.hour)).toEqual([11]);
    db.close();
    const file = new Database(join(dir, 'state.db'), { readonly: true });
    expect(file.pragma('user_version', { simple: true })).toBe(5);
    file.close();
  });

  it('upgrades a ledger of whole hours (version 4) to quarter hours, each hour its first quarter; report reads either', () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'state.db'));
    old.exec(`${TABLES_OF_VERSION_3}
            CREATE TABLE ledger (hour INTEGER NOT NULL, harness TEXT NOT NULL, project TEXT NOT NULL, model TEXT NOT NULL,
        input INTEGER NOT NULL DEFAULT 0, output INTEGER NOT NULL DEFAULT 0, cache_read INTEGER NOT NULL DEFAULT 0,
        cache_write INTEGER NOT NULL DEFAULT 0, reasoning INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
        requests INTEGER NOT NULL DEFAULT 0, sessions INTEGER NOT NULL DEFAULT 0, turns_completed INTEGER NOT NULL DEFAULT 0,
        turns_failed INTEGER NOT NULL DEFAULT 0, turns_interrupted INTEGER NOT NULL DEFAULT 0, first_ms REAL, last_ms REAL,
        PRIMARY KEY (hour, harness, project, model)) WITHOUT ROWID;
      INSERT INTO ledger VALUES (10, 'codex', 'p', 'm', 1, 2, 3, 4, 1, 0.5, 1, 1, 1, 0, 0, 36000500, 36002000);
      PRAGMA user_version = 4;`);
    old.close();
    const whole = {
      hour: 10,
      quarter: 0,
      harness: 'codex',
      project: 'p',
      model: 'm',
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheWrite: 4,
      reasoning: 1,
      costUsd: 0.5,
      requests: 1,
      sessions: 1,
      turnsCompleted: 1,
      turnsFailed: 0,
      turnsInterrupted: 0,
      firstMs: 36_000_500,
      lastMs: 36_002_000,
    };
    // Beside an exporter that has not upgraded it yet.
    expect(readReportState(dir, 0, 100, false)?.ledger).toEqual([whole]);
    const db = new StateDb(dir);
    expect(db.ledger()).toEqual([whole]);
    const empty = { files: [], removedFiles: [], sessions: [], counters: [], kv: [], seen: [] };
    db.commit({
      ...empty,
      ledger: [
        { ...whole, quarter: 2, sessions: 0, turnsCompleted: 0, firstMs: 37_900_000, lastMs: 37_900_000 },
        { ...whole, sessions: 0, turnsCompleted: 0 },
      ],
    });
    expect(db.ledger()).toEqual([
      { ...whole, input: 2, output: 4, cacheRead: 6, cacheWrite: 8, reasoning: 2, costUsd: 1, requests: 2 },
      { ...whole, quarter: 2, sessions: 0, turnsCompleted: 0, firstMs: 37_900_000, lastMs: 37_900_000 },
    ]);
    db.close();
    expect(readReportState(dir, 0, 100, false)?.ledger.map((r) => r.quarter)).toEqual([0, 2]);
    const file = new Database(join(dir, 'state.db'), { readonly: true });
    expect(file.pragma('user_version', { simple: true })).toBe(5);
    file.close();
  });

  const refusals: [string, (path: string) => void, RegExp][] = [
    ['empty (0 bytes)', (p) => writeFileSync(p, ''), /is empty \(0 bytes\)/],
    ['not a database', (p) => writeFileSync(p, Buffer.alloc(8192, 7)), /cannot be read/],
    [
      'of another schema',
      (p) => {
        const other = new Database(p);
        other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
        other.close();
      },
      /not a state database of this exporter/,
    ],
    [
      'damaged past its header',
      (p) => {
        const db = new StateDb(join(p, '..'));
        db.commit({
          files: [],
          removedFiles: [],
          sessions: [],
          counters: [],
          kv: [],
          seen: Array.from({ length: 5000 }, (_, i) => `key-${i}`),
        });
        db.close();
        // A page of the dedupe keys overwritten: the header and the schema still read.
        const bytes = readFileSync(p);
        expect(bytes.length).toBeGreaterThan(16 * 4096);
        bytes.fill(7, 8 * 4096, 9 * 4096);
        writeFileSync(p, bytes);
      },
      /is damaged/,
    ],
    [
      'of a newer version',
      (p) => {
        new StateDb(join(p, '..')).close();
        const db = new Database(p);
        db.pragma('user_version = 99');
        db.close();
      },
      /newer version/,
    ],
    [
      'without its ledger',
      (p) => {
        new StateDb(join(p, '..')).close();
        const db = new Database(p);
        db.exec('DROP TABLE ledger');
        db.close();
      },
      /not a state database of this exporter \(table ledger lacks hour, /,
    ],
  ];
  it.each(refusals)(
    'that is %s stops start-up and `report`, naming the file and --reset-state; --reset-state starts over',
    (_name, make, message) => {
      const stateDir = tempDir();
      const path = join(stateDir, 'state.db');
      make(path);
      const before = readFileSync(path);
      expect(() => new StateDb(stateDir)).toThrow(message);
      const env = envFor(join(FIXTURES, 'home'));
      const r = run(['once', '--state-dir', stateDir], env);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(path);
      expect(r.stderr).toContain('--reset-state');
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      // `report` reads it with the same checks: the same message, no stack trace.
      for (const kind of ['daily', 'session']) {
        const report = run(['report', kind, '--state-dir', stateDir], env);
        expect(report.status).toBe(2);
        expect(report.stderr).toMatch(message);
        expect(report.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      }
      expect(readFileSync(path)).toEqual(before); // never replaced in silence
      const reset = run(['once', '--state-dir', stateDir, '--reset-state'], env);
      expect(reset.status).toBe(0);
      expect(reset.stdout).toContain('coding_agent_tokens_total');
      expect(run(['once', '--state-dir', stateDir], env).status).toBe(0);
      expect(existsSync(`${path}.new`)).toBe(false);
    },
    60_000,
  );
});

describe('the dedupe keys of a state database', () => {
  it('are read at the first lookup, not at open (a restart that reads nothing new never reads them)', () => {
    const dir = tempDir();
    const first = new StateDb(dir);
    first.commit({ files: [], removedFiles: [], sessions: [], counters: [], kv: [], seen: ['a'] });
    first.close();
    const db = new StateDb(dir);
    // Written after the open, by another connection: a filter filled at open would not know it.
    const other = new Database(join(dir, 'state.db'));
    other.prepare('INSERT INTO seen (key) VALUES (?)').run('b');
    other.close();
    expect([db.seen('a'), db.seen('b'), db.seen('c')]).toEqual([true, true, false]);
    db.commit({ files: [], removedFiles: [], sessions: [], counters: [], kv: [], seen: ['d'] });
    expect(db.seen('d')).toBe(true);
    db.close();
  });

  it('are all kept, however many one commit writes (a hundred to a statement, the rest one by one)', () => {
    const dir = tempDir();
    const db = new StateDb(dir);
    const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `k${from + i}`);
    const empty = { files: [], removedFiles: [], sessions: [], counters: [], kv: [] };
    db.commit({ ...empty, seen: keys(0, 50) });
    expect(db.seen('k0')).toBe(true); // the filter is read now, and kept up to date by commits
    // Keys written before, and the same key twice in one batch: kept once, nothing refused.
    db.commit({ ...empty, seen: [...keys(0, 150), 'k7', ...keys(150, 257)] });
    expect(keys(0, 257).every((k) => db.seen(k))).toBe(true);
    expect(db.seen('k257')).toBe(false);
    db.close();
    const again = new StateDb(dir);
    expect(keys(0, 257).every((k) => again.seen(k))).toBe(true);
    const other = new Database(join(dir, 'state.db'));
    expect(other.prepare('SELECT count(*) AS n FROM seen').get()).toEqual({ n: 257 });
    other.close();
    again.close();
  });
});
