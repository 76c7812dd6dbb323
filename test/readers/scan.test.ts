import { describe, expect, it } from 'vitest';
import { lineCount, numberOf, time } from '../../src/readers/fields.js';
import { scanRecord, type Shape } from '../../src/readers/scan.js';
import { pythonJson } from '../helpers/json.js';

const SHAPE: Shape = {
  type: true,
  n: true,
  ok: true,
  usage: true,
  message: { id: true, content: { type: true, text: true } },
};
const record = {
  type: 'assistant',
  skipped: { deep: [1, { type: 'not this one' }], s: 'a "quoted" \\ text' },
  n: -12.5e1,
  ok: true,
  usage: { input_tokens: 3 },
  message: { id: 'm\u00e91', content: [{ type: 'text', text: 'line\n"two"' }, 'not an object', { type: 'tool_use' }] },
};

describe('scanRecord', () => {
  it.each([
    ['compact', JSON.stringify(record)],
    ['spaced as Python writes it', pythonJson(record)],
    ['indented', JSON.stringify(record, null, 2).replace(/\n/g, ' ')],
  ])('reads the members a shape names, however the JSON is spaced (%s)', (_, text) => {
    const rec = scanRecord(Buffer.from(text), SHAPE)!;
    expect(rec.text('type')).toBe('assistant');
    expect(rec.number('n')).toBe(-125);
    expect(rec.isTrue('ok')).toBe(true);
    expect(rec.value('usage')).toEqual({ input_tokens: 3 });
    expect(rec.kind('usage')).toBe('object');
    expect(rec.has('skipped')).toBe(false);
    const msg = rec.object('message')!;
    expect(msg.text('id')).toBe('m\u00e91');
    expect(msg.items('content')!.map((b) => [b.text('type'), b.text('text')])).toEqual([
      ['text', 'line\n"two"'],
      ['tool_use', undefined],
    ]);
  });

  it('takes the last of duplicate keys, as JSON.parse does', () => {
    expect(scanRecord(Buffer.from('{"type":"a","type":"b"}'), SHAPE)!.text('type')).toBe('b');
  });

  it('reads nothing of a line that is not exactly one JSON object', () => {
    const text = JSON.stringify(record);
    for (const bad of [
      '',
      '   ',
      'null',
      '42',
      '"s"',
      '[{}]',
      '\u0000\u0000',
      '{"type":"a"} {}',
      '{"type":"a",}',
      '{"type" "a"}',
      '{type:"a"}',
      '{"type":"a',
      '{"a":[1,2}',
      '{"a":}',
      ...Array.from({ length: 40 }, (_, i) => text.slice(0, Math.floor((i / 40) * text.length))),
    ]) {
      expect([bad, scanRecord(Buffer.from(bad), SHAPE)]).toEqual([bad, undefined]);
    }
  });

  it('reads a time member as time() reads its decoded text, the usual form on its bytes', () => {
    const texts = [
      '2026-01-05T01:40:49.315Z',
      '1999-12-31T23:59:59.999Z',
      '2024-02-28T00:00:00.000Z',
      '2024-02-29T12:00:00.000Z',
      '2025-02-29T12:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-01-31T10:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-13-10T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-05T24:00:00.000Z',
      '2026-01-05T23:60:00.000Z',
      '2026-01-05T23:59:60.000Z',
      '0050-01-05T01:40:49.315Z',
      '0150-01-05T01:40:49.315Z',
      '2026-01-05T01:40:49.315+',
      '2026-01-05 01:40:49.315Z',
      '2026-01-05T01:40:49,315Z',
      '2026-01-05T01:4a:49.315Z',
      '2026-01-05T01:40:49Z',
      '2026-01-05T01:40:49.315+02:00',
      '2026-01-05',
      'Mon, 05 Jan 2026 01:40:49 GMT',
      '',
      'x'.repeat(24),
    ];
    // Every day of a leap year and of the years around, at varying times.
    for (let d = Date.UTC(2023, 0, 1); d < Date.UTC(2025, 0, 1); d += 86_400_000 + 3_723_456)
      texts.push(new Date(d).toISOString());
    // The days around the ends of months and years of centuries, leap and not, from year 100 on.
    for (const year of [100, 101, 399, 400, 1600, 1899, 1900, 1969, 1970, 2000, 2099, 2100, 2400, 9999])
      for (const [month, day] of [
        [0, 1],
        [1, 28],
        [2, 1],
        [11, 28],
      ] as const)
        texts.push(new Date(Date.UTC(year, month, day, 23, 59, 59, 999)).toISOString());
    for (const t of texts) {
      expect(scanRecord(Buffer.from(JSON.stringify({ type: t })), SHAPE)!.time('type'), t).toBe(time(t));
    }
    // Escaped, not a string, absent.
    expect(scanRecord(Buffer.from('{"type":"\\u0032026-01-05T01:40:49.315Z"}'), SHAPE)!.time('type')).toBe(
      time('\u0032026-01-05T01:40:49.315Z'),
    );
    expect(scanRecord(Buffer.from('{"type":"\u0032026-01-05T01:40:49.315Z"}'), SHAPE)!.time('type')).toBe(
      Date.UTC(2026, 0, 5, 1, 40, 49, 315),
    );
    expect(scanRecord(Buffer.from('{"type":1767577249315}'), SHAPE)!.time('type')).toBeUndefined();
    expect(scanRecord(Buffer.from('{}'), SHAPE)!.time('type')).toBeUndefined();
  });

  it('counts the lines of a string member on its bytes as lineCount counts the decoded text', () => {
    const texts = ['', 'a', 'a\n', 'a\nb', '\n\n', 'x\\n', 'x\\\n', 'say "hi"\n', 'a\u000ab', 'é\r\nü\n', 'tab\t\\'];
    for (const t of texts) {
      const rec = scanRecord(Buffer.from(JSON.stringify({ type: t })), SHAPE)!;
      expect(rec.lineCount('type'), JSON.stringify(t)).toBe(lineCount(t));
    }
    // Escapes written as \uXXXX (a newline among them) are decoded first.
    expect(scanRecord(Buffer.from('{"type":"a\\u000ab\\u000a"}'), SHAPE)!.lineCount('type')).toBe(2);
    expect(scanRecord(Buffer.from('{"type":1}'), SHAPE)!.lineCount('type')).toBeUndefined();
    expect(scanRecord(Buffer.from('{}'), SHAPE)!.lineCount('type')).toBeUndefined();
  });

  it('reads a count on its bytes as numberOf reads the decoded value', () => {
    const values = [
      '7',
      '0',
      '123456789012345',
      '1234567890123456789',
      '-5',
      '0.25',
      '1e400',
      '-0',
      '"12"',
      '"1.5"',
      '"-5"',
      '"12a"',
      '"\\u0031\\u0032"',
      'true',
      'false',
      'null',
      '{}',
      '[1]',
      '""',
    ];
    for (const v of values) {
      const text = `{"n":${v}}`;
      const counted = scanRecord(Buffer.from(text), SHAPE)!.count('n');
      expect([v, counted]).toEqual([v, numberOf((JSON.parse(text) as { n: unknown }).n)]);
    }
    expect(scanRecord(Buffer.from('{}'), SHAPE)!.count('n')).toBe(0);
  });

  it('decodes a text as JSON.parse does, the same bytes again (also on the next line) to the same string, bytes of the same hash to theirs', () => {
    const texts = [
      'assistant',
      'Aa',
      'BB',
      'Aa',
      'é',
      'Ã©',
      'a\\"b',
      '',
      'x'.repeat(64),
      'y'.repeat(65),
      '/home/ada/src/api',
    ];
    const decoded: string[] = [];
    for (const t of [...texts, ...texts, ...texts.flatMap((t) => [t, t])]) {
      const line = `{"type":${JSON.stringify(t)}}`;
      decoded.push(scanRecord(Buffer.from(line), SHAPE)!.text('type')!);
    }
    expect(decoded).toEqual([...texts, ...texts, ...texts.flatMap((t) => [t, t])]);
  });
});
