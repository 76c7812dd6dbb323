// Which file a path holds, against a real state database: the file read before (grown or not),
// one moved there, one replaced or cut short under the same name, one gone and back.

import { appendFileSync, linkSync, renameSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileIdentities, RETAIN_GONE_MS } from '../../src/collectors/identity.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';

afterEach(() => vi.restoreAllMocks());

function setup() {
  const stateDir = tempDir();
  const db = new StateDb(stateDir);
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const files = new FileIdentities('codex', [], createLogger('error'));
  /** Tracks `path` as read whole, as the collector does after a read. */
  const read = (path: string) => {
    const st = statSync(path);
    const prev = files.previous(path, st)?.row;
    files.track(
      {
        path,
        collector: 'codex',
        ino: st.ino,
        size: st.size,
        mtimeMs: st.mtimeMs,
        offset: st.size,
        state: '{}',
        ...files.head(path, prev, prev?.offset ?? 0, st.size),
      },
      st.size,
    );
  };
  const reopen = () => {
    // As the collector does between files and at a scan's end: what changed of the rows, handed to the store.
    files.handOver(store);
    store.commit();
    return db.files('codex').map((r) => r.path);
  };
  return { dir: tempDir(), files, read, reopen, previous: (path: string) => files.previous(path, statSync(path)) };
}

describe('file identity', () => {
  it('knows nothing of a file never read', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\n');
    expect(t.previous(path)).toBeUndefined();
  });

  it('tells a file read to its end from one grown since', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\n');
    t.read(path);
    expect(t.previous(path)).toMatchObject({ unchanged: true, row: { offset: 4 } });
    appendFileSync(path, 'two\n');
    const grown = t.previous(path)!;
    expect(grown).toMatchObject({ unchanged: false, row: { offset: 4 } });
    expect(grown.again).toBeUndefined();
  });

  it('reads again from the start a file replaced or cut short, replaying only the same history', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\ntwo\n');
    t.read(path);
    // The same beginning under a new inode: a rewrite, its old lines replayed.
    writeFileSync(`${path}.tmp`, 'one\ntwo\nthree\n');
    renameSync(`${path}.tmp`, path);
    expect(t.previous(path)).toMatchObject({ unchanged: false, again: { replayUntil: 8 } });
    // Another beginning: a new history, nothing replayed.
    t.read(path);
    writeFileSync(`${path}.tmp`, 'ONE\ntwo\nthree\n');
    renameSync(`${path}.tmp`, path);
    expect(t.previous(path)?.again).toEqual({ replayUntil: 0 });
    // Cut short in place (same inode): read again; what is left of the first bytes is not the same head.
    t.read(path);
    truncateSync(path, 4);
    expect(t.previous(path)?.again).toEqual({ replayUntil: 0 });
  });

  it('keeps the identity the first read of a beginning fixed, while the file grows', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\n');
    t.read(path);
    const first = t.files.get(path)!;
    appendFileSync(path, 'two\n');
    t.read(path);
    expect(t.files.get(path)).toMatchObject({ head: first.head, headLength: 4, offset: 8 });
  });

  it('follows a file moved to another path (same inode, same first bytes), and forgets its old path', () => {
    const t = setup();
    const from = join(t.dir, 'a.jsonl');
    const to = join(t.dir, 'archived.jsonl');
    writeFileSync(from, 'one\n');
    t.read(from);
    renameSync(from, to);
    expect(t.previous(to)).toMatchObject({ unchanged: true, row: { path: to, offset: 4 } });
    expect(t.files.get(from)).toBeUndefined();
    expect(t.reopen()).toEqual([to]);
  });

  it('does not take a new file for a moved one while the old path is still there', () => {
    const t = setup();
    const a = join(t.dir, 'a.jsonl');
    writeFileSync(a, 'one\n');
    t.read(a);
    const b = join(t.dir, 'b.jsonl');
    writeFileSync(b, 'one\n');
    expect(t.previous(b)).toBeUndefined();
  });

  it('keeps a file not listed any more for a while: back, it is not gone; gone too long, it is forgotten', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\n');
    t.read(path);
    t.files.sweep(new Set());
    expect(t.files.get(path)?.goneMs).toBeGreaterThan(0);
    t.files.listed(path);
    expect(t.files.get(path)?.goneMs).toBeUndefined();
    t.files.sweep(new Set());
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + RETAIN_GONE_MS + 1000);
    t.files.sweep(new Set([join(t.dir, 'other.jsonl')]));
    expect(t.files.get(path)).toBeUndefined();
    expect(t.reopen()).toEqual([]);
  });

  it('looks a file never read up among the files read before by its inode, not one by one (the first read of many files stays linear)', () => {
    const t = setup();
    const n = 300;
    for (let i = 0; i < n; i++) {
      writeFileSync(join(t.dir, `old-${i}.jsonl`), `${i}\n`);
      t.read(join(t.dir, `old-${i}.jsonl`));
    }
    for (let i = 0; i < n; i++) {
      writeFileSync(join(t.dir, `new-${i}.jsonl`), `${i}\n`);
      expect(t.previous(join(t.dir, `new-${i}.jsonl`))).toBeUndefined();
    }
    // No two files here share an inode: nothing to compare. One by one, it was n * n.
    expect(t.files.comparisons).toBeLessThan(n);
  });

  it('knows a file read under another path it is still found under (a link, a hard link) as the file read there', () => {
    const t = setup();
    const path = join(t.dir, 'a.jsonl');
    writeFileSync(path, 'one\n');
    t.read(path);
    const link = join(t.dir, 'link.jsonl');
    const hard = join(t.dir, 'hard.jsonl');
    symlinkSync(path, link);
    linkSync(path, hard);
    expect(t.files.readElsewhere(link, statSync(link))).toBe(true);
    expect(t.files.readElsewhere(hard, statSync(hard))).toBe(true);
    expect(t.files.readElsewhere(path, statSync(path))).toBe(false); // read here
    const copy = join(t.dir, 'copy.jsonl');
    writeFileSync(copy, 'one\n');
    expect(t.files.readElsewhere(copy, statSync(copy))).toBe(false);
    // Not listed under its path any more: it is not read there.
    t.files.sweep(new Set());
    expect(t.files.readElsewhere(link, statSync(link))).toBe(false);
  });
});
