import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStdin } from '../../src/files/stdin.js';

describe('readStdin', () => {
  it('reads to the end, whatever the pieces (a character split between two of them)', async () => {
    const stdin = new PassThrough();
    const text = readStdin(stdin, { maxBytes: 100, waitMs: 60_000 });
    const bytes = Buffer.from('{"model":"Ünï"}');
    stdin.write(bytes.subarray(0, 11));
    setImmediate(() => stdin.end(bytes.subarray(11)));
    await expect(text).resolves.toBe('{"model":"Ünï"}');
  });

  it('refuses more than its bound, a stdin never closed after its wait, and a terminal', async () => {
    const large = new PassThrough();
    const refused = readStdin(large, { maxBytes: 4 << 20, waitMs: 60_000 });
    large.write(Buffer.alloc((4 << 20) + 1));
    await expect(refused).rejects.toThrow('stdin is larger than 4 MB');

    const open = new PassThrough();
    const waited = readStdin(open, { maxBytes: 100, waitMs: 50 });
    open.write('{');
    await expect(waited).rejects.toThrow('stdin was not closed within 0.05 s');

    await expect(
      readStdin(Object.assign(new PassThrough(), { isTTY: true }), { maxBytes: 100, waitMs: 50 }),
    ).rejects.toThrow('a terminal');
  });
});
