import { describe, expect, it } from 'vitest';
import { documentObject, documentValue } from '../../src/readers/document.js';
import { valuesAtMost } from '../../src/readers/scan.js';
import { HARNESSES } from '../../src/collectors/registry.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { HarnessId } from '../../src/session/types.js';
import { eventsNamed, recorder } from '../helpers/events.js';

/** `n` empty objects in an array: 3 bytes a value, the densest JSON there is but for digits. */
const dense = (n: number) => Buffer.from(`[${'{},'.repeat(n - 1)}{}]`);

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
    const doc = Buffer.from(JSON.stringify({ messages: Array.from({ length: 100_000 }, (_, i) => ({ text: `message ${i} of a thread` })) }));
    expect((documentObject(doc, events)!.messages as unknown[]).length).toBe(100_000);
    expect((documentValue(dense(30_000), events) as unknown[]).length).toBe(30_000);
    expect(eventsNamed(log, 'skipped')).toEqual([]);
  });

  it('is skipped as file_too_large, unparsed, where it holds more: 8 million tiny values in 24 MB', () => {
    const { events, log } = recorder();
    expect(documentValue(dense(8_000_000), events)).toBeUndefined();
    expect(eventsNamed(log, 'skipped')).toEqual([['skipped', 'file_too_large']]);
  });

  it('is skipped as parse_error where it is no JSON, or, asked for an object, no object', () => {
    const { events, log } = recorder();
    expect(documentValue(Buffer.from('{"a":'), events)).toBeUndefined();
    expect(documentObject(Buffer.from('[1]'), events)).toBeUndefined();
    expect(documentValue(Buffer.from('null'), events)).toBeNull();
    expect(eventsNamed(log, 'skipped')).toEqual([['skipped', 'parse_error'], ['skipped', 'parse_error']]);
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
];

describe.each(DOCUMENTS)('the %s reader, given %s', (harness, path) => {
  it('skips a document of 1 MB of tiny values as file_too_large, unparsed', async () => {
    const reader = await HARNESSES[harness].load();
    const file: SessionFile = { path, sessionId: 's', document: true };
    const { events, log } = recorder();
    reader.readDocument!(dense(350_000), reader.initialState(file), file, events);
    expect(log).toEqual([['skipped', 'file_too_large']]);
  });
});
