import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decompress } from 'fzstd';
import { describe, expect, it } from 'vitest';
import { unzstd } from '../../src/readers/zstd.js';
import { FIXTURES } from '../helpers/run.js';
import { zstdFrame } from '../helpers/zstd.js';

const MB = 1 << 20;
// Compared natively: vitest's deep equality takes seconds over a megabyte.
const same = (got: unknown, want: Buffer) => Buffer.isBuffer(got) && got.equals(want);

describe('bounded zstd decompression', () => {
  it('decodes a real OpenClaw blob as the decompressor does (its frame declares an 8 MB window)', () => {
    const blob = readFileSync(join(FIXTURES, 'openclaw/answer.json.zst'));
    expect(same(unzstd(blob, 16 * MB), Buffer.from(decompress(blob)))).toBe(true);
  });

  it('decodes frames one after another, and a skippable frame between them', () => {
    const skippable = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const blob = Buffer.concat([
      zstdFrame([Buffer.from('ab'), { byte: 0x63, times: 200_000 }]),
      skippable,
      zstdFrame([Buffer.from('d')]),
    ]);
    expect(
      same(unzstd(blob, 16 * MB), Buffer.concat([Buffer.from('ab'), Buffer.alloc(200_000, 'c'), Buffer.from('d')])),
    ).toBe(true);
  });

  it('gives a bomb up once its output passes the limit: 32 kB that would be 1 GB', () => {
    const bomb = zstdFrame([{ byte: 0x61, times: 1 << 30 }]);
    expect(bomb.length).toBeLessThan(40_000);
    expect(unzstd(bomb, 16 * MB)).toBe('too_large');
  });

  it('takes output up to the limit exactly', () => {
    const blob = zstdFrame([{ byte: 0x61, times: MB }]);
    expect(same(unzstd(blob, MB), Buffer.alloc(MB, 'a'))).toBe(true);
    expect(unzstd(zstdFrame([{ byte: 0x61, times: MB + 1 }]), MB)).toBe('too_large');
  });

  it('refuses a frame whose window is above the limit before allocating it: a 1 GB window for 2 bytes', () => {
    expect(unzstd(zstdFrame([Buffer.from('{}')], 30), 16 * MB)).toBe('too_large');
    // The same in a second frame.
    expect(unzstd(Buffer.concat([zstdFrame([Buffer.from('{}')]), zstdFrame([Buffer.from('{}')], 30)]), 16 * MB)).toBe(
      'too_large',
    );
  });

  it('says invalid for what is no whole zstd', () => {
    const frame = zstdFrame([Buffer.from('{"a":1}')]);
    expect(unzstd(Buffer.from('not zstd'), MB)).toBe('invalid');
    expect(unzstd(Buffer.alloc(0), MB)).toBe('invalid');
    expect(unzstd(frame.subarray(0, frame.length - 1), MB)).toBe('invalid');
    expect(unzstd(Buffer.concat([frame, Buffer.from([0])]), MB)).toBe('invalid');
  });
});
