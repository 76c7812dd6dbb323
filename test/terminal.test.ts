import { describe, expect, it } from 'vitest';
import { printable, printableJson } from '../src/terminal.js';

describe('printable', () => {
  it('shows each control, C1 and bidi character as one U+FFFD, and keeps the rest', () => {
    expect(printable('a\x1b]52;c;eA==\x07b\x9b2J\u202ec\td\n')).toBe(
      'a\ufffd]52;c;eA==\ufffdb\ufffd2J\ufffdc\ufffdd\ufffd',
    );
    expect(printable('claude-sonnet-4-5 ✓ ü 日本')).toBe('claude-sonnet-4-5 ✓ ü 日本');
  });
});

describe('printableJson', () => {
  it('escapes what JSON.stringify leaves raw, and reads back as the same value', () => {
    const value = { model: 'x\x1b\x9b\u2066\u202ey', n: 1 };
    const text = printableJson(value);
    // eslint-disable-next-line no-control-regex -- the characters a terminal acts on
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('x\\u001b\\u009b\\u2066\\u202ey');
    expect(JSON.parse(text)).toEqual(value);
    expect(printableJson(value, 0)).toBe('{"model":"x\\u001b\\u009b\\u2066\\u202ey","n":1}');
  });
});
