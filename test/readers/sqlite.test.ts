// Reading a harness's SQLite store while the harness writes to it: read-only, never in its way.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { opencode } from '../../src/readers/opencode/reader.js';
import type { DbState } from '../../src/readers/opencode/records.js';
import { readDatabase } from '../../src/readers/sqlite.js';
import type { Usage } from '../../src/session/types.js';
import { recorder } from '../helpers/events.js';
import { OpenCodeDb, T0, tokens } from '../helpers/opencode-db.js';
import { CHILD_OPEN } from '../helpers/sqlite.js';

const hash = (p: string) => createHash('sha1').update(readFileSync(p)).digest('hex');
const count = (path: string) => readDatabase(path, (db) => db.prepare('SELECT count(*) FROM part').pluck().get());

function withRows(db: OpenCodeDb, n: number): void {
  db.session('s1', 0);
  db.assistant('s1', 'a1', 1);
  for (let i = 0; i < n; i++)
    db.part('s1', 'a1', `p${i}`, 2 + i, { type: 'step-finish', cost: 0, tokens: tokens(1, 1, 0, 0) });
}

describe('read-only SQLite access', () => {
  it('reads the rows still in the -wal of a database a harness has open, leaving the database and its -wal as they were', () => {
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 5);
    const before = { db: hash(db.path), wal: hash(`${db.path}-wal`) };
    expect(count(db.path)).toBe(5);
    expect({ db: hash(db.path), wal: hash(`${db.path}-wal`) }).toEqual(before);
    db.close();
  });

  it('reads a WAL database nobody has open without copying it or creating anything beside it', () => {
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 3);
    db.close();
    const files = readdirSync(dirname(db.path));
    expect(existsSync(`${db.path}-wal`)).toBe(false);
    const before = hash(db.path);
    // A copy would be made in the temp folder (os.tmpdir() follows TMPDIR): it must stay empty.
    const tmp = mkdtempSync(join(tmpdir(), 'cae-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let during: string[] = [];
    try {
      expect(
        readDatabase(db.path, (d) => {
          during = readdirSync(tmp);
          return d.prepare('SELECT count(*) FROM part').pluck().get();
        }),
      ).toBe(3);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(during).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(dirname(db.path))).toEqual(files);
    expect(hash(db.path)).toBe(before);
  });

  it('gives up at once on a database another process holds locked, without blocking the event loop', async () => {
    const db = new OpenCodeDb();
    withRows(db, 2);
    db.close();
    // Another process takes the database for itself (rollback journal: readers cannot read).
    const locker = spawn(
      process.execPath,
      [
        '-e',
        `
      ${CHILD_OPEN}
      const db = open(${JSON.stringify(db.path)});
      db.exec('BEGIN EXCLUSIVE');
      console.log('locked');
      process.stdin.once('data', () => { db.exec('COMMIT'); process.exit(0); });
    `,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => locker.stdout.once('data', () => resolve()));
    expect(() => count(db.path)).toThrow(/locked|busy/i);
    // The read sleeps on the event loop while it waits for a lock: it waits a few milliseconds (the
    // old way waited 4 busy timeouts of 200 ms and pauses between them: about a second).
    expect(readDatabase(db.path, (d) => d.pragma('busy_timeout', { simple: true }))).toBeLessThanOrEqual(50);
    locker.stdin.write('go\n');
    await new Promise((resolve) => locker.once('exit', resolve));
    expect(count(db.path)).toBe(2);
  });

  it('never opens a database, or its -wal, that is a FIFO (it would block)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cae-fifo-'));
    execFileSync('mkfifo', [join(dir, 'opencode.db')]);
    expect(() => count(join(dir, 'opencode.db'))).toThrow(/not a regular file/);
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 1);
    db.close();
    execFileSync('mkfifo', [`${db.path}-wal`]);
    expect(() => count(db.path)).toThrow(/not a regular file/);
  });

  // A read-only bind mount in a private mount namespace stands for a `:ro` container mount or
  // systemd's ProtectHome=read-only; it needs unprivileged user namespaces.
  const canMount = spawnSync('unshare', ['-rm', 'true']).status === 0;
  it.skipIf(!canMount)('reads a database on a read-only file system while the harness writes to it', async () => {
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 3);
    const dir = dirname(db.path);
    const reader = `const { readDatabase } = await import(${JSON.stringify(new URL('../../dist/readers/sqlite.js', import.meta.url).href)});
      console.log(readDatabase(${JSON.stringify(db.path)}, (d) => d.prepare('SELECT count(*) FROM part').pluck().get()));`;
    const r = spawnSync(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        `mount --bind ${dir} ${dir} && mount -o remount,ro,bind ${dir} && touch ${dir}/x 2>/dev/null || ${process.execPath} --input-type=module -e "$0"`,
        reader,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('3');
    db.close();
  });

  it("fails with the database's error when a file is not a database (the next scan tries again)", () => {
    const db = new OpenCodeDb();
    db.close();
    expect(() => readDatabase(`${db.path}.missing`, () => 0)).toThrow();
  });

  it('keeps up with another process writing, never failing and never making the writer wait', async () => {
    const db = new OpenCodeDb({ wal: true });
    db.session('s1', 0);
    db.assistant('s1', 'a1', 1);
    db.close();
    // The writer has no busy timeout: any lock a read held in its way would fail an insert. It
    // writes until told to stop, a row every millisecond or so.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `
      ${CHILD_OPEN}
      const db = open(${JSON.stringify(db.path)}, { timeout: 0 });
      db.pragma('journal_mode = WAL');
      const insert = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
      const data = JSON.stringify({ type: 'step-finish', cost: 0, tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } });
      let written = 0, errors = 0, stop = false;
      process.stdin.once('data', () => (stop = true));
      const write = () => {
        if (stop) {
          console.log(JSON.stringify({ written, errors }));
          process.exit(0);
        }
        try { const t = ${T0} + 10 + written; insert.run('p' + written, 'a1', 's1', t, t, data); written++; } catch (e) { errors++; }
        if (written % 50 === 0) db.pragma('wal_checkpoint(PASSIVE)');
        setTimeout(write, 1);
      };
      write();
    `,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    writer.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const done = new Promise<void>((resolve) => writer.on('exit', () => resolve()));

    const file = { path: db.path, sessionId: 'opencode.db' };
    const r = recorder();
    let state: DbState = opencode.initialState(file);
    const inputs = () => r.log.filter(([e]) => e === 'usage').reduce((a, [, , u]) => a + (u as Usage).input, 0);
    // Reads while the writer writes, until ten of them have each seen rows written since the one
    // before (however fast this machine lets either go).
    let seen = 0;
    for (let growing = 0; growing < 10; await sleep(10)) {
      state = JSON.parse(JSON.stringify(state)) as DbState;
      opencode.readStore(file, state, () => r.events);
      if (inputs() > seen) growing++;
      seen = inputs();
    }
    writer.stdin.write('stop\n');
    await done;
    opencode.readStore(file, state, () => r.events);
    const { written, errors } = JSON.parse(out) as { written: number; errors: number };
    expect(errors).toBe(0);
    expect(inputs()).toBe(written);
  }, 60_000);
});

// What this process has open of `path`, and whether for reading only (Linux: /proc/self/fd and fdinfo).
function openFlags(path: string): ('read-only' | 'read-write')[] {
  const modes: ('read-only' | 'read-write')[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the listing's own descriptor)
    }
    if (target !== path) continue;
    const flags = Number.parseInt(/^flags:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8);
    modes.push((flags & 3) === 0 ? 'read-only' : 'read-write');
  }
  return modes;
}

describe.runIf(existsSync('/proc/self/fdinfo'))('what a read opens of a WAL database', () => {
  it('while a harness writes it: the database and -shm read-only; the -wal as SQLite opens it, and nothing written', async () => {
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 2);
    db.close();
    // The harness, in a process of its own (SQLite shares one -shm handle between a process's connections).
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `
      ${CHILD_OPEN}
      const db = open(${JSON.stringify(db.path)});
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      const data = JSON.stringify({ type: 'step-finish', cost: 0, tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } });
      db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('p9', 'a1', 's1', ${T0} + 99, ${T0} + 99, data);
      console.log('written');
      process.stdin.once('data', () => process.exit(0));
    `,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
      const before = { db: hash(db.path), wal: hash(`${db.path}-wal`), shm: hash(`${db.path}-shm`) };
      const opened = readDatabase(db.path, (d) => ({
        rows: d.prepare('SELECT count(*) FROM part').pluck().get(),
        db: openFlags(db.path),
        wal: openFlags(`${db.path}-wal`),
        shm: openFlags(`${db.path}-shm`),
      }));
      expect(opened).toEqual({ rows: 3, db: ['read-only'], wal: ['read-write'], shm: ['read-only'] });
      expect({ db: hash(db.path), wal: hash(`${db.path}-wal`), shm: hash(`${db.path}-shm`) }).toEqual(before);
    } finally {
      writer.stdin.write('end\n');
      await new Promise((resolve) => writer.once('exit', resolve));
    }
  });

  it('left with a -wal and no -shm (no process has it open): creates no -shm, opens nothing for writing, reads the database file alone', () => {
    const db = new OpenCodeDb({ wal: true });
    withRows(db, 2);
    db.db.pragma('wal_checkpoint(TRUNCATE)');
    db.part('s1', 'a1', 'p-in-wal', 9, { type: 'step-finish', cost: 0, tokens: tokens(1, 1, 0, 0) });
    const copy = join(mkdtempSync(join(tmpdir(), 'cae-walcopy-')), 'opencode.db');
    // A copy taken while the harness had it open: the rows are in the -wal.
    copyFileSync(db.path, copy);
    copyFileSync(`${db.path}-wal`, `${copy}-wal`);
    db.close();
    const before = { db: hash(copy), wal: hash(`${copy}-wal`) };
    const opened = readDatabase(copy, (d) => ({
      rows: d.prepare('SELECT count(*) FROM part').pluck().get(),
      db: openFlags(copy),
      wal: openFlags(`${copy}-wal`),
    }));
    expect(opened).toEqual({ rows: 2, db: ['read-only'], wal: [] });
    expect(existsSync(`${copy}-shm`)).toBe(false);
    expect({ db: hash(copy), wal: hash(`${copy}-wal`) }).toEqual(before);
  });
});
