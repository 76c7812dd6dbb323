import { describe, expect, it } from 'vitest';
import { BloomFilter } from '../../src/state/bloom.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';

describe('dedupe keys', () => {
  it('never forgets a key, and rarely claims one it was not given', () => {
    const f = new BloomFilter(100_000);
    for (let i = 0; i < 100_000; i++) f.add(`msg:msg_${i}`);
    for (let i = 0; i < 100_000; i++) expect(f.mayHave(`msg:msg_${i}`)).toBe(true);
    let false_ = 0;
    for (let i = 0; i < 100_000; i++) if (f.mayHave(`msg:other_${i}`)) false_++;
    expect(false_).toBeLessThan(500);
  });

  it('takes memory for the keys it holds, and grows past the keys it was sized for', () => {
    const f = new BloomFilter(1_000);
    expect(f.bytes).toBeLessThanOrEqual(32 * 1024);
    for (let i = 0; i < 200_000; i++) f.add(`msg:msg_${i}`);
    for (let i = 0; i < 200_000; i++) expect(f.mayHave(`msg:msg_${i}`)).toBe(true);
    let false_ = 0;
    for (let i = 0; i < 100_000; i++) if (f.mayHave(`msg:other_${i}`)) false_++;
    expect(false_).toBeLessThan(1_000);
    expect(f.bytes).toBeLessThan((2 * 200_000 * 16) / 8);
  });

  it('knows committed keys after a restart', () => {
    const dir = tempDir();
    const db = new StateDb(dir);
    db.commit({ files: [], removedFiles: [], sessions: [], counters: [], kv: [], seen: ['c\0msg:a'] });
    expect(db.seen('c\0msg:a')).toBe(true);
    db.close();
    const again = new StateDb(dir);
    expect(again.seen('c\0msg:a')).toBe(true);
    expect(again.seen('c\0msg:b')).toBe(false);
    expect(again.seen('other\0msg:a')).toBe(false);
    again.close();
  });
});
