import { cpSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { continueCli } from '../../src/readers/continue-cli/reader.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readAtOnce } from '../../src/readers/reader.js';

const ID = '7bf71713-281f-4031-aafe-2b30931cfe27';
const captured = JSON.parse(
  readFileSync(join(FIXTURES, `captures/continue-cli/tool/.continue/sessions/${ID}.json`), 'utf8'),
) as { history: object[] };
const doc = (history: object[]) => Buffer.from(JSON.stringify({ ...captured, history }));
const file = { path: `/nowhere/sessions/${ID}.json`, sessionId: ID, document: true as const };
const prompt = (text: string) => ({ message: { role: 'user', content: text }, contextItems: [] });
const answer = (prompt: number, output: number) => ({
  message: {
    role: 'assistant',
    content: 'ok',
    usage: {
      prompt_tokens: prompt,
      completion_tokens: output,
      prompt_tokens_details: { cached_tokens: 0 },
      model: 'm',
    },
  },
  contextItems: [],
});

/** A real store and collector over a sessions folder. */
function collect(root: string) {
  const db = new StateDb(':memory:');
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector('continue-cli', continueCli, [root], store, db, createLogger('error'));
  const tokens = (type: string) =>
    [...store.counters.values()]
      .filter((c) => c.metric === 'tokens' && c.labels.token_type === type)
      .reduce((n, c) => n + c.value, 0);
  return { collector, store, tokens };
}

describe('Continue CLI reader', () => {
  it('counts each answer, tool call and prompt once as the document is rewritten after each turn', () => {
    const r = recorder();
    const state = continueCli.initialState(file);
    const [p, callAnswer, final] = captured.history;
    readAtOnce(continueCli.readDocument(doc([p!, callAnswer!]), state, file, r.events));
    readAtOnce(continueCli.readDocument(doc([p!, callAnswer!, final!]), state, file, r.events));
    readAtOnce(continueCli.readDocument(doc([p!, callAnswer!, final!]), state, file, r.events));
    expect(eventsNamed(r.log, 'usage').map(([, model, u]) => [model, u])).toEqual([
      ['fake-model', { input: 345, output: 56, cacheRead: 789, cacheWrite: 100, cacheWrite1h: 0, reasoning: 12 }],
      ['fake-model', { input: 350, output: 60, cacheRead: 900, cacheWrite: 50, cacheWrite1h: 0, reasoning: 14 }],
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolCall').map(([, id, call]) => [id, call])).toEqual([
      ['call_64118952e0e5b0f1b417a2ae', { tool: 'Bash', kind: 'execute' }],
    ]);
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([
      ['call_64118952e0e5b0f1b417a2ae', false],
    ]);
    // The answer with a tool call leaves the turn open; the final answer ends it, once.
    expect(countedTurns(r.log)).toEqual(['completed']);
  });

  it('counts the same words asked again as another prompt, and a prompt left without an answer as interrupted', () => {
    const r = recorder();
    const state = continueCli.initialState(file);
    readAtOnce(continueCli.readDocument(doc([prompt('again'), answer(100, 1)]), state, file, r.events));
    readAtOnce(
      continueCli.readDocument(doc([prompt('again'), answer(100, 1), prompt('again')]), state, file, r.events),
    );
    readAtOnce(
      continueCli.readDocument(
        doc([prompt('again'), answer(100, 1), prompt('again'), prompt('other'), answer(300, 2)]),
        state,
        file,
        r.events,
      ),
    );
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(3);
    expect(eventsNamed(r.log, 'usage')).toHaveLength(2);
    expect(countedTurns(r.log)).toEqual(['completed', 'interrupted', 'completed']);
  });

  it('fails a call that errored or was cancelled', () => {
    const r = recorder();
    const call = (id: string) => ({ id, type: 'function', function: { name: 'Bash', arguments: '{}' } });
    const item = {
      message: { role: 'assistant', content: '', toolCalls: [call('a'), call('b'), call('c')] },
      toolCallStates: [
        { toolCallId: 'a', status: 'errored' },
        { toolCallId: 'b', status: 'canceled' },
        { toolCallId: 'c', status: 'calling' },
      ],
    };
    readAtOnce(continueCli.readDocument(doc([prompt('x'), item]), continueCli.initialState(file), file, r.events));
    expect(eventsNamed(r.log, 'toolCall')).toHaveLength(3);
    // `c` still runs: no result yet.
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([
      ['a', true],
      ['b', true],
    ]);
  });

  it('reads the capture through the collector once, again after a rewrite only what is new, and skips a document too large to read', async () => {
    const root = tempDir();
    cpSync(join(FIXTURES, 'captures/continue-cli/tool/.continue/sessions'), root, { recursive: true });
    const path = join(root, `${ID}.json`);
    const { collector, tokens } = collect(root);
    await collector.scan();
    expect(tokens('input')).toBe(695);
    // The next turn: the document rewritten whole with one more prompt and answer.
    const history = [...captured.history, prompt('next'), answer(2000, 10)];
    writeFileSync(path, JSON.stringify({ ...captured, history }, null, 2));
    await collector.scan();
    expect(tokens('input')).toBe(695 + 2000);
    expect(tokens('output')).toBe(116 + 10);
    // A 200 MB session (sparse: nothing is written) is never read into memory.
    const big = join(root, '00000000-0000-4000-8000-000000000000.json');
    writeFileSync(big, '{');
    truncateSync(big, 200 << 20);
    await collector.scan();
    expect(collector.stats.skipped.get('file_too_large')).toBe(1);
    expect(collector.stats.success).toBe(true);
    expect(tokens('input')).toBe(695 + 2000);
  });

  it('finds the sessions where CONTINUE_GLOBAL_DIR says, never the index or other files', () => {
    expect(continueCli.defaultRoots({ CONTINUE_GLOBAL_DIR: '/cfg/continue' }, '/home/u')).toEqual([
      '/cfg/continue/sessions',
    ]);
    expect(continueCli.defaultRoots({}, '/home/u')).toEqual(['/home/u/.continue/sessions']);
    const root = tempDir();
    mkdirSync(root, { recursive: true });
    for (const name of ['sessions.json', `${ID}.json`, 'notes.json']) writeFileSync(join(root, name), '{}');
    expect(continueCli.listFiles(root).map((f) => f.sessionId)).toEqual([ID]);
  });

  it('recognises the cn process', () => {
    expect(harnessOf(['cn', '-p', 'hi'])).toBe('continue-cli');
    expect(harnessOf(['node', '/usr/lib/node_modules/@continuedev/cli/dist/cn.js', '-p'])).toBe('continue-cli');
  });
});
