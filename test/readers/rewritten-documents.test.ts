// Amp's threads and Auggie's sessions are rewritten whole as they grow; Junie may append a usage
// event again: every record counts once.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amp } from '../../src/readers/amp/reader.js';
import { auggie } from '../../src/readers/auggie/reader.js';
import { junie } from '../../src/readers/junie/reader.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES } from '../helpers/run.js';
import { readAtOnce } from '../../src/readers/reader.js';

const HOME = join(FIXTURES, 'homes/vscode-extensions-and-clis');
const usages = (log: unknown[][]) => eventsNamed(log, 'usage').map(([, model, u]) => [model, u]);

describe('Amp reader', () => {
  const path = join(HOME, '.local/share/amp/threads/T-88afe9a2-2b84-44bd-b1b2-5bb73ce50e76.json');
  const file = { path, sessionId: 'T-88afe9a2-2b84-44bd-b1b2-5bb73ce50e76', document: true as const };
  const thread = JSON.parse(readFileSync(path, 'utf8')) as { messages: object[] };
  const doc = (n: number) => Buffer.from(JSON.stringify({ ...thread, messages: thread.messages.slice(0, n) }));

  it('counts each answer, call, result and prompt once as the thread is rewritten, a GPT prompt as input', () => {
    const r = recorder();
    const state = amp.initialState(file);
    for (const n of [1, 2, 3, 4, 4]) readAtOnce(amp.readDocument(doc(n), state, file, r.events));
    expect(usages(r.log)).toEqual([
      ['gpt-5.4', { input: 1553, output: 131, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }],
      ['gpt-5.4', { input: 824, output: 90, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }],
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolCall')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolResult')).toHaveLength(1);
    expect(countedTurns(r.log)).toEqual(['completed']);
    expect(eventsNamed(r.log, 'meta')).toContainEqual(['meta', { cwd: '/home/dev/src/demo-app' }]);
  });

  it('reads the threads of every data folder AMP_DATA_DIR names', () => {
    expect(amp.defaultRoots({ AMP_DATA_DIR: '/a,/b' }, '/home/u')).toEqual(['/a/threads', '/b/threads']);
    expect(amp.defaultRoots({ XDG_DATA_HOME: '/x' }, '/home/u')).toEqual(['/x/amp/threads']);
    expect(amp.defaultRoots({}, '/home/u')).toEqual(['/home/u/.local/share/amp/threads']);
  });
});

describe('Auggie reader', () => {
  const path = join(HOME, '.augment/sessions/f37cd742-b35b-4b8f-a8f4-d19019938ea4.json');
  const file = { path, sessionId: 'f37cd742-b35b-4b8f-a8f4-d19019938ea4', document: true as const };
  const session = JSON.parse(readFileSync(path, 'utf8')) as { chatHistory: Record<string, unknown>[] };

  it('counts each exchange once as the session is rewritten, and ends its turn once it completed', () => {
    const r = recorder();
    const state = auggie.initialState(file);
    readAtOnce(auggie.readDocument(readFileSync(path), state, file, r.events));
    // The open exchange completes, with its usage.
    const last = session.chatHistory[1]!;
    const done = {
      ...last,
      completed: true,
      finishedAt: '2026-11-30T11:40:00.000Z',
      exchange: {
        ...(last.exchange as object),
        response_nodes: [
          {
            type: 10,
            token_usage: {
              input_tokens: 10,
              output_tokens: 20,
              cache_read_input_tokens: 30,
              cache_creation_input_tokens: 40,
            },
          },
        ],
      },
    };
    for (let i = 0; i < 2; i++)
      readAtOnce(
        auggie.readDocument(
          Buffer.from(JSON.stringify({ ...session, chatHistory: [session.chatHistory[0], done] })),
          state,
          file,
          r.events,
        ),
      );
    expect(usages(r.log)).toEqual([
      ['gpt-5-4', { input: 894, output: 767, cacheRead: 8528, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }],
      ['gpt-5-4', { input: 10, output: 20, cacheRead: 30, cacheWrite: 40, cacheWrite1h: 0, reasoning: 0 }],
    ]);
    expect(countedTurns(r.log)).toEqual(['completed', 'completed']);
    expect(eventsNamed(r.log, 'prompt')).toEqual([]);
  });
});

describe('Junie reader', () => {
  it('counts a usage event Junie appended again once, with its cost', () => {
    const path = join(HOME, '.junie/sessions/session-261130-113552/events.jsonl');
    const file = { path, sessionId: 'session-261130-113552' };
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const r = recorder();
    const state = junie.initialState(file);
    for (const l of [...lines, lines[2]!]) junie.readLine(Buffer.from(l), state, file, r.events);
    expect(usages(r.log)).toHaveLength(3);
    expect(eventsNamed(r.log, 'usage').map(([, , , , , cost]) => cost)).toEqual([0.0079773, 0.01116825, 0.0117888]);
    // Each call ends the turn; the next reopens it: one turn.
    expect(countedTurns(r.log)).toEqual(['completed']);
  });
});
