import { describe, expect, it } from 'vitest';
import { documentObject, documentValue, parseAhead } from '../../src/readers/document.js';
import { valuesAtMost as valuesAtMostSteps } from '../../src/readers/scan.js';
import { HARNESSES } from '../../src/collectors/registry.js';
import { readAtOnce, type SessionFile } from '../../src/readers/reader.js';
import type { HarnessId } from '../../src/session/types.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { denseJson } from '../helpers/json.js';

/** `valuesAtMost`, its steps taken at once. */
function valuesAtMost(b: Buffer, max: number): boolean {
  const steps = valuesAtMostSteps(b, max);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

const dense = (n: number) => Buffer.from(denseJson(n));

describe('what a document holds, counted before it is parsed', () => {
  it('counts commas and opening brackets, not those inside strings', () => {
    expect(valuesAtMost(Buffer.from('{"a":[1,2],"b":{}}'), 5)).toBe(true);
    expect(valuesAtMost(Buffer.from('{"a":[1,2],"b":{}}'), 4)).toBe(false);
    expect(valuesAtMost(Buffer.from(`{"a":"${',[{'.repeat(1000)}\\"${',,'.repeat(1000)}"}`), 1)).toBe(true);
    // A cut string: the parse says what it is.
    expect(valuesAtMost(Buffer.from('{"a":"[[[[[[['), 1)).toBe(true);
  });
});

describe('a whole JSON document', () => {
  it('is parsed where it holds at most one value per 16 bytes, or few', () => {
    const { events, log } = recorder();
    const doc = Buffer.from(
      JSON.stringify({ messages: Array.from({ length: 100_000 }, (_, i) => ({ text: `message ${i} of a thread` })) }),
    );
    expect((documentObject(doc, events)!.messages as unknown[]).length).toBe(100_000);
    expect((documentValue(dense(30_000), events) as unknown[]).length).toBe(30_000);
    expect(eventsNamed(log, 'skipped')).toEqual([]);
  });

  it('is skipped as file_too_large, unparsed, where it holds more: 8 million tiny values in 24 MB', () => {
    const { events, log } = recorder();
    expect(documentValue(dense(8_000_000), events)).toBeUndefined();
    expect(eventsNamed(log, 'skipped')).toEqual([['skipped', 'file_too_large']]);
  });

  it('of a megabyte or more is parsed ahead, with turns of the event loop, into the value JSON.parse gives', async () => {
    const { events, log } = recorder();
    const doc = Buffer.from(
      JSON.stringify({
        messages: Array.from({ length: 100_000 }, (_, i) => ({ [`k${i}`]: i, text: `message ${i} of a thread` })),
      }),
    );
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    await parseAhead(doc);
    clearInterval(counting);
    expect(turns).toBeGreaterThan(0);
    expect(documentObject(doc, events)).toEqual(JSON.parse(doc.toString()));
    expect(eventsNamed(log, 'skipped')).toEqual([]);
    expect(parseAhead(Buffer.from('{"small": true}'))).toBeUndefined(); // parsed when its reader asks
  });

  it('parsed ahead, is skipped as documentValue skips it: too many values, no JSON', async () => {
    const { events, log } = recorder();
    const docs = [
      dense(8_000_000),
      Buffer.from(`[${'"a line of text", '.repeat(100_000)}`),
      Buffer.from(`${JSON.stringify(Array(100_000).fill('a line of text'))} [`),
    ];
    for (const doc of docs) {
      await parseAhead(doc);
      expect(documentValue(doc, events)).toBeUndefined();
    }
    expect(eventsNamed(log, 'skipped')).toEqual([
      ['skipped', 'file_too_large'],
      ['skipped', 'parse_error'],
      ['skipped', 'parse_error'],
    ]);
  });

  it('is skipped as parse_error where it is no JSON, or, asked for an object, no object', () => {
    const { events, log } = recorder();
    expect(documentValue(Buffer.from('{"a":'), events)).toBeUndefined();
    expect(documentObject(Buffer.from('[1]'), events)).toBeUndefined();
    expect(documentValue(Buffer.from('null'), events)).toBeNull();
    expect(eventsNamed(log, 'skipped')).toEqual([
      ['skipped', 'parse_error'],
      ['skipped', 'parse_error'],
    ]);
  });
});

// Every reader of a whole document, with the documents it reads (a path per kind of file).
const DOCUMENTS: [HarnessId, string][] = [
  ['amp', '/h/threads/T-0123.json'],
  ['auggie', '/h/sessions/s.json'],
  ['continue-cli', '/h/sessions/s.json'],
  ['cline', '/h/sessions/s.json'],
  ['cline', '/h/sessions/s.messages.json'],
  ['cline', '/h/tasks/1/ui_messages.json'],
  ['roo-code', '/h/tasks/1/ui_messages.json'],
  ['kilo', '/h/tasks/1/ui_messages.json'],
  ['droid', '/h/sessions/s.settings.json'],
  ['gemini-cli', '/h/tmp/p/chats/session-1.json'],
  ['openhands', '/h/0123456789abcdef0123456789abcdef/base_state.json'],
  ['kiro', '/h/sessions/cli/s.json'],
];

describe.each(DOCUMENTS)('the %s reader, given %s', (harness, path) => {
  it('skips a document of 1 MB of tiny values as file_too_large, unparsed', async () => {
    const reader = await HARNESSES[harness].load();
    const file: SessionFile = { path, sessionId: 's', document: true };
    const { events, log } = recorder();
    readAtOnce(reader.readDocument!(dense(350_000), reader.initialState(file), file, events));
    expect(log).toEqual([['skipped', 'file_too_large']]);
  });
});
