import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pi } from '../../src/readers/pi/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { countedTurns, eventsNamed, recorder, storeTurns } from '../helpers/events.js';
import { envFor, FIXTURES, run, sum, tempDir } from '../helpers/run.js';

const file: SessionFile = {
  path: '/h/.pi/agent/sessions/--src-app--/2026-11-30T10-00-00-000Z_s1.jsonl',
  sessionId: 's1',
};
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
let n = 0;
const entry = (ms: number, type: string, extra: object) =>
  JSON.stringify({
    type,
    id: (++n).toString(16).padStart(8, '0'),
    parentId: null,
    timestamp: new Date(t0 + ms).toISOString(),
    ...extra,
  });
const header = JSON.stringify({
  type: 'session',
  version: 3,
  id: 's1',
  timestamp: new Date(t0).toISOString(),
  cwd: '/src/app',
});
const user = (ms: number) =>
  entry(ms, 'message', { message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: t0 + ms } });
const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, cost = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});
const answer = (
  ms: number,
  stopReason: string,
  content: object[] = [{ type: 'text', text: 'x' }],
  u = usage(400, 50, 800, 100),
  extra: object = {},
) =>
  entry(ms, 'message', {
    message: {
      role: 'assistant',
      content,
      api: 'openai-completions',
      provider: 'fake',
      model: 'fake-model',
      usage: u,
      stopReason,
      timestamp: t0 + ms,
      ...extra,
    },
  });
const failed = (ms: number, errorMessage = '500 The server had an error') =>
  answer(ms, 'error', [], usage(0, 0), { errorMessage });
const toolResult = (ms: number, id: string, isError: boolean) =>
  entry(ms, 'message', {
    message: {
      role: 'toolResult',
      toolCallId: id,
      toolName: 'bash',
      content: [{ type: 'text', text: 'x' }],
      isError,
      timestamp: t0 + ms,
    },
  });

function read(lines: string[], r = recorder(), f = file) {
  const state = pi.initialState(f);
  for (const l of lines) pi.readLine(Buffer.from(l), state, f, r.events);
  return r;
}
const usages = (log: unknown[][]) => eventsNamed(log, 'usage').map(([, , u]) => u as Usage);
const outcomes = countedTurns;

describe('pi sessions', () => {
  it("count each answer's usage as pi records it, with its tool calls and their results", () => {
    const r = read([
      header,
      user(0),
      answer(1, 'toolUse', [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: {} }]),
      toolResult(2, 'c1', true),
      answer(3, 'stop'),
    ]);
    expect(usages(r.log)).toEqual([
      { input: 400, output: 50, cacheRead: 800, cacheWrite: 100, cacheWrite1h: 0, reasoning: 0 },
      { input: 400, output: 50, cacheRead: 800, cacheWrite: 100, cacheWrite1h: 0, reasoning: 0 },
    ]);
    expect(eventsNamed(r.log, 'toolCall')).toEqual([['toolCall', 'c1', { tool: 'bash', kind: 'execute' }]]);
    expect(eventsNamed(r.log, 'toolResult')).toEqual([['toolResult', 'c1', true, { tool: 'bash', kind: 'execute' }]]);
    expect(outcomes(r.log)).toEqual(['completed']);
    expect(eventsNamed(r.log, 'context').at(-1)).toEqual(['context', 'fake-model', 1300]);
  });

  it('use the cost pi recorded where it is not zero, the list price otherwise', () => {
    const r = read([user(0), answer(1, 'stop', undefined, usage(400, 50, 0, 0, 0.0123)), user(2), answer(3, 'stop')]);
    expect(eventsNamed(r.log, 'usage').map((e) => e[5])).toEqual([0.0123, undefined]);
  });

  it('fail a turn only when its last answer failed: a retried failure is no failed turn', () => {
    const retried = read([user(0), failed(1), answer(2, 'stop')]);
    expect(outcomes(retried.log)).toEqual(['completed']);
    // pi gives up after its retries (4 attempts by default), or at once on an error it does not retry.
    const gaveUp = read([user(0), failed(1), failed(2), failed(3), failed(4)]);
    expect(outcomes(gaveUp.log)).toEqual(['failed']);
    expect(eventsNamed(gaveUp.log, 'turnEnded')[0]![2]).toBe(t0 + 4);
    const fatal = read([user(0), failed(1, '400 Bad request: invalid tool schema')]);
    expect(outcomes(fatal.log)).toEqual(['failed']);
  });

  it('fail a turn cut short by the next prompt after failed attempts, interrupt one without', () => {
    const r = read([
      user(0),
      failed(1),
      user(2),
      answer(3, 'toolUse', [{ type: 'toolCall', id: 'c1', name: 'read', arguments: {} }]),
      user(4),
    ]);
    expect(outcomes(r.log)).toEqual(['failed', 'interrupted']);
  });

  it('reopen a turn ended as failed when pi was configured to retry more (its failure stays counted)', () => {
    const r = read([user(0), failed(1), failed(2), failed(3), failed(4), failed(5), answer(6, 'stop')]);
    expect(storeTurns(r.log)).toEqual({
      counted: [{ outcome: 'failed', endedAt: t0 + 4, startedAt: t0 }],
      last: { outcome: 'completed', endedAt: t0 + 6, startedAt: t0 },
      open: false,
    });
    // A turn that completed is no failure retried: an answer after it does not reopen it.
    expect(
      storeTurns(read([user(0), answer(1, 'stop'), failed(2, '400 Bad request'), answer(3, 'stop')]).log).last,
    ).toEqual({ outcome: 'completed', endedAt: t0 + 1, startedAt: t0 });
  });

  it('end an aborted turn as interrupted', () => {
    expect(outcomes(read([user(0), answer(1, 'aborted')]).log)).toEqual(['interrupted']);
  });

  it("count a fork's copy of its parent's entries once", () => {
    const lines = [
      header,
      user(0),
      answer(1, 'toolUse', [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: {} }]),
      toolResult(2, 'c1', true),
      answer(3, 'stop'),
    ];
    const r = recorder();
    read(lines, r);
    read(lines, r, { path: '/h/.pi/agent/sessions/--src-app--/2026-11-30T11-00-00-000Z_s2.jsonl', sessionId: 's2' });
    expect(eventsNamed(r.log, 'usage')).toHaveLength(2);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolCall')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolResult')).toHaveLength(1);
  });

  it('report the model of a model change and skip what it cannot read', () => {
    const r = read([
      entry(0, 'model_change', { provider: 'anthropic', modelId: 'claude-sonnet-4-5' }),
      entry(1, 'thinking_level_change', { thinkingLevel: 'off' }),
      '{"type":"message"',
      '{"type":"message","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"assistant"}}',
    ]);
    expect(eventsNamed(r.log, 'meta')).toEqual([['meta', { model: 'claude-sonnet-4-5' }]]);
    expect(eventsNamed(r.log, 'skipped')).toEqual([
      ['skipped', 'parse_error'],
      ['skipped', 'unknown_shape'],
    ]);
  });
});

describe('pi files', () => {
  it('are the session files under ~/.pi/agent/sessions (never auth.json or models.json beside it), by session uuid', () => {
    const h = tempDir();
    cpSync(join(FIXTURES, 'captures/pi/tool/.pi'), join(h, '.pi'), { recursive: true });
    writeFileSync(join(h, '.pi/agent/auth.json'), '{}');
    const roots = pi.defaultRoots({}, h);
    expect(roots).toEqual([join(h, '.pi/agent/sessions')]);
    expect(pi.defaultRoots({ PI_CODING_AGENT_DIR: '/x' }, h)).toEqual(['/x/sessions', join(h, '.pi/agent/sessions')]);
    expect(roots.flatMap((root) => pi.listFiles(root)).map((f) => f.sessionId)).toEqual([
      '01a23135-3b39-7552-9f79-8d3e13937a8a',
    ]);
  });

  it('count what `--continue` appended, once, across runs of the binary', () => {
    const h = tempDir();
    cpSync(join(FIXTURES, 'captures/pi/text/.pi'), join(h, '.pi'), { recursive: true });
    const state = tempDir();
    expect(run(['once', '--state-dir', state], envFor(h)).status).toBe(0);
    const dir = join(h, '.pi/agent/sessions/--home-dev-src-demo-app--');
    const path = join(dir, readdirSync(dir)[0]!);
    writeFileSync(path, [user(1e9), answer(1e9 + 1, 'stop', undefined, usage(400, 60, 850, 50)), ''].join('\n'), {
      flag: 'a',
    });
    const r = run(['once', '--state-dir', state], envFor(h));
    const t = (type: string) => sum(r.stdout, 'coding_agent_tokens_total', { harness: 'pi', token_type: type });
    expect([t('input'), t('output'), t('cache_read'), t('cache_write')]).toEqual([
      445 + 400,
      56 + 60,
      689 + 850,
      100 + 50,
    ]);
    expect(sum(r.stdout, 'coding_agent_prompts_total', { harness: 'pi' })).toBe(2);
    expect(sum(r.stdout, 'coding_agent_turns_total', { harness: 'pi', outcome: 'completed' })).toBe(2);
  });
});
