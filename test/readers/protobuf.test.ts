import { describe, expect, it } from 'vitest';
import { bytes, decode, message, messages, text, uint, uints } from '../../src/readers/protobuf.js';
import { buf, key, ld, v, varint } from '../../bench/protobuf-writer.js';

describe('protobuf wire format', () => {
  it('reads varints, strings, embedded messages and repeated fields', () => {
    const usage = [...v(2, 973), ...v(3, 150), ...v(5, 3208)];
    const m = decode(
      buf(
        ld(1, [...ld(4, usage), ...ld(19, 'gemini-3.1-pro')]),
        ld(7, [...ld(1, 'call_1')]),
        ld(7, [...ld(1, 'call_2')]),
      ),
    )!;
    const chat = message(m, 1);
    expect(text(chat, 19)).toBe('gemini-3.1-pro');
    const u = message(chat, 4);
    expect([uint(u, 2), uint(u, 3), uint(u, 4), uint(u, 5)]).toEqual([973, 150, 0, 3208]);
    expect(messages(m, 7).map((c) => text(c, 1))).toEqual(['call_1', 'call_2']);
  });

  it('reads multi-byte varints exactly, up to 2^53', () => {
    expect(uint(decode(buf(v(1, 300))), 1)).toBe(300);
    expect(uint(decode(buf(v(1, 1796039220))), 1)).toBe(1796039220);
    expect(uint(decode(buf(v(1, 2 ** 53 - 1))), 1)).toBe(2 ** 53 - 1);
    // field numbers above 15 take a two-byte key
    expect(uint(decode(buf(v(148, 7))), 148)).toBe(7);
  });

  it('reads fixed32 and fixed64 fields, and skips what it is not asked for', () => {
    const f32 = [...key(3, 5), 0x78, 0x56, 0x34, 0x12];
    const f64 = [...key(4, 1), 1, 0, 0, 0, 2, 0, 0, 0];
    const m = decode(buf(f32, f64, v(9, 1)))!;
    expect(uint(m, 3)).toBe(0x12345678);
    expect(uint(m, 4)).toBe(2 * 2 ** 32 + 1);
    expect(uint(m, 9)).toBe(1);
  });

  it('reads packed and unpacked repeated varints', () => {
    expect(uints(decode(buf(ld(2, [1, 3, ...varint(300)]))), 2)).toEqual([1, 3, 300]);
    expect(uints(decode(buf(v(2, 1), v(2, 5))), 2)).toEqual([1, 5]);
  });

  it('takes the last value of a field given twice (protobuf merge), and 0 or undefined for absent ones', () => {
    const m = decode(buf(v(1, 1), v(1, 2)))!;
    expect(uint(m, 1)).toBe(2);
    expect(uint(m, 2)).toBe(0);
    expect(text(m, 3)).toBeUndefined();
    expect(bytes(m, 1)).toBeUndefined(); // a varint is not bytes
    expect(message(m, 1)).toBeUndefined();
  });

  it('decodes an empty message as no fields', () => {
    expect(decode(Buffer.alloc(0))).toEqual(new Map());
  });

  it.each([
    ['a truncated varint', [0x08, 0x80]],
    ['a varint over 10 bytes', [0x08, ...Array(11).fill(0xff), 0x01]],
    ['a length past the end', [0x0a, 0x05, 0x61]],
    ['a truncated fixed64', [0x09, 1, 2, 3]],
    ['a truncated fixed32', [0x0d, 1, 2]],
    ['a group (wire type 3)', [0x0b, 0x0c]],
    ['wire type 7', [0x0f, 0x00]],
    ['field number 0', [0x00, 0x01]],
    ['text', [...Buffer.from('not a protobuf message')]],
  ])('rejects %s without throwing', (_, bytesIn) => {
    expect(decode(Buffer.from(bytesIn as number[]))).toBeUndefined();
  });

  it('leaves a malformed embedded message undefined, and the rest readable', () => {
    const m = decode(buf(ld(1, [0x0a, 0x09]), v(2, 4)))!;
    expect(message(m, 1)).toBeUndefined();
    expect(messages(m, 1)).toEqual([]);
    expect(uint(m, 2)).toBe(4);
  });

  it('never throws on random bytes', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    expect(() => {
      for (let i = 0; i < 2000; i++) {
        const b = Buffer.from(Array.from({ length: 1 + (i % 40) }, rnd));
        const m = decode(b);
        for (const f of m?.keys() ?? []) {
          message(m, f);
          uints(m, f);
        }
      }
    }).not.toThrow();
  });
});
