import { describe, expect, it } from 'vitest';
import { lineCount } from '../../src/readers/fields.js';
import { scanRecord, type Shape } from '../../src/readers/scan.js';
import { pythonJson } from '../helpers/json.js';

const SHAPE: Shape = { type: true, n: true, ok: true, usage: true, message: { id: true, content: { type: true, text: true } } };
const record = { type: 'assistant', skipped: { deep: [1, { type: 'not this one' }], s: 'a "quoted" \\ text' }, n: -12.5e1, ok: true,
  usage: { input_tokens: 3 }, message: { id: 'm\u00e91', content: [{ type: 'text', text: 'line\n"two"' }, 'not an object', { type: 'tool_use' }] } };

describe('scanRecord', () => {
  it.each([['compact', JSON.stringify(record)], ['spaced as Python writes it', pythonJson(record)], ['indented', JSON.stringify(record, null, 2).replace(/\n/g, ' ')]])(
    'reads the members a shape names, however the JSON is spaced (%s)', (_, text) => {
      const rec = scanRecord(Buffer.from(text), SHAPE)!;
      expect(rec.text('type')).toBe('assistant');
      expect(rec.number('n')).toBe(-125);
      expect(rec.isTrue('ok')).toBe(true);
      expect(rec.value('usage')).toEqual({ input_tokens: 3 });
      expect(rec.kind('usage')).toBe('object');
      expect(rec.has('skipped')).toBe(false);
      const msg = rec.object('message')!;
      expect(msg.text('id')).toBe('m\u00e91');
      expect(msg.items('content')!.map((b) => [b.text('type'), b.text('text')])).toEqual([['text', 'line\n"two"'], ['tool_use', undefined]]);
    });

  it('takes the last of duplicate keys, as JSON.parse does', () => {
    expect(scanRecord(Buffer.from('{"type":"a","type":"b"}'), SHAPE)!.text('type')).toBe('b');
  });

  it('reads nothing of a line that is not exactly one JSON object', () => {
    const text = JSON.stringify(record);
    for (const bad of ['', '   ', 'null', '42', '"s"', '[{}]', '\u0000\u0000', '{"type":"a"} {}', '{"type":"a",}', '{"type" "a"}', '{type:"a"}',
      '{"type":"a', '{"a":[1,2}', '{"a":}', ...Array.from({ length: 40 }, (_, i) => text.slice(0, Math.floor((i / 40) * text.length)))]) {
      expect([bad, scanRecord(Buffer.from(bad), SHAPE)]).toEqual([bad, undefined]);
    }
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
});
