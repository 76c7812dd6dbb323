import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwenCode } from '../../src/readers/qwen-code/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const file: SessionFile = { path: '/h/.qwen/projects/-src-app/chats/s1.jsonl', sessionId: 's1' };
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
let n = 0;
const rec = (ms: number, type: string, extra: object) =>
  JSON.stringify({
    uuid: `u${++n}`,
    parentUuid: null,
    sessionId: 's1',
    timestamp: new Date(t0 + ms).toISOString(),
    type,
    cwd: '/src/app',
    version: '0.24.4',
    gitBranch: 'main',
    ...extra,
  });
const user = (ms: number, text: string, extra: object = {}) =>
  rec(ms, 'user', { message: { role: 'user', parts: [{ text }] }, ...extra });
const answer = (ms: number, parts: object[], extra: object = {}) =>
  rec(ms, 'assistant', {
    model: 'qwen3-coder-plus',
    message: { role: 'model', parts },
    usageMetadata: {
      promptTokenCount: 1000,
      candidatesTokenCount: 50,
      cachedContentTokenCount: 400,
      totalTokenCount: 1050,
    },
    contextWindowSize: 1_000_000,
    ...extra,
  });
const call = (id: string, name: string) => ({ functionCall: { id, name, args: {} } });
const uiEvent = (ms: number, event: object) =>
  rec(ms, 'system', { subtype: 'ui_telemetry', systemPayload: { uiEvent: event } });
const response = (ms: number, id: string, extra: object = {}) =>
  uiEvent(ms, {
    'event.name': 'qwen-code.api_response',
    response_id: id,
    model: 'qwen3-coder-plus',
    status_code: 200,
    input_token_count: 1000,
    output_token_count: 50,
    cached_content_token_count: 400,
    thoughts_token_count: 10,
    total_token_count: 1050,
    auth_type: 'openai',
    ...extra,
  });
const apiError = (ms: number, status: number, extra: object = {}) =>
  uiEvent(ms, {
    'event.name': 'qwen-code.api_error',
    response_id: '',
    model: 'qwen3-coder-plus',
    status_code: status,
    error_type: 'X',
    ...extra,
  });
const result = (ms: number, callId: string, status: string, resultDisplay: unknown = 'ok') =>
  rec(ms, 'tool_result', {
    message: { role: 'user', parts: [{ functionResponse: { id: callId, name: 'x', response: { output: 'ok' } } }] },
    toolCallResult: { callId, status, resultDisplay },
  });

function read(lines: string[], r = recorder()) {
  const state = qwenCode.initialState(file);
  for (const l of lines) qwenCode.readLine(Buffer.from(l), state, file, r.events);
  return r;
}
const usages = (log: unknown[][]) => eventsNamed(log, 'usage').map(([, model, u]) => [model, u as Usage]);
const outcomes = countedTurns;

describe('Qwen Code tokens', () => {
  it('reports the plan todo_write carries, items by state', () => {
    const todos = [
      { id: '1', content: 'a', status: 'completed' },
      { id: '2', content: 'b', status: 'pending' },
    ];
    const r = read([user(0, 'hi'), answer(2, [{ functionCall: { id: 'c1', name: 'todo_write', args: { todos } } }])]);
    expect(eventsNamed(r.log, 'todos')).toEqual([['todos', { completed: 1, pending: 1 }]]);
  });

  it('come from API response telemetry only, cache reads taken out of the prompt', () => {
    const r = read([user(0, 'hi'), response(1, 'r1'), answer(2, [{ text: 'hello' }])]);
    expect(usages(r.log)).toEqual([
      ['qwen3-coder-plus', { input: 600, output: 50, cacheRead: 400, cacheWrite: 0, cacheWrite1h: 0, reasoning: 10 }],
    ]);
    expect(eventsNamed(r.log, 'usage')[0]![3]).toBe(1000); // the whole prompt selects price tiers
  });

  it('count background subagent requests, which leave nothing but their telemetry, under their model', () => {
    const r = read([
      user(0, 'hi'),
      response(1, 'r1'),
      answer(2, [{ text: 'hello' }]),
      response(3, 'r2', {
        model: 'qwen3-flash',
        subagent_name: 'managed-auto-memory-extractor',
        input_token_count: 11,
        output_token_count: 7,
        cached_content_token_count: 0,
        thoughts_token_count: 0,
      }),
    ]);
    expect(usages(r.log).map(([m]) => m)).toEqual(['qwen3-coder-plus', 'qwen3-flash']);
    expect(eventsNamed(r.log, 'meta').filter(([, m]) => (m as { model?: string }).model === 'qwen3-flash')).toEqual([]);
  });

  it('add reasoning to the output where the provider reports it apart (Gemini)', () => {
    const r = read([response(1, 'r1', { auth_type: 'gemini-api-key' })]);
    expect(usages(r.log)[0]![1]).toMatchObject({ output: 60, reasoning: 10 });
  });

  it('count a response once, also when a branched session copies it', () => {
    const r = read([response(1, 'r1'), response(1, 'r1'), response(2, 'r2')]);
    expect(eventsNamed(r.log, 'usage')).toHaveLength(2);
  });
});

describe('Qwen Code context', () => {
  it('is the last prompt of the main agent against the recorded window', () => {
    const r = read([
      user(0, 'hi'),
      answer(2, [{ text: 'hello' }]),
      answer(3, [{ text: 'sub' }], { isSidechain: true, agentId: 'explore-1', usageMetadata: { promptTokenCount: 9 } }),
    ]);
    expect(eventsNamed(r.log, 'context')).toEqual([['context', 'qwen3-coder-plus', 1000, 1_000_000]]);
  });

  it('has no limit where the version records none', () => {
    const r = read([answer(2, [{ text: 'hello' }], { contextWindowSize: undefined })]);
    expect(eventsNamed(r.log, 'context')).toEqual([['context', 'qwen3-coder-plus', 1000, undefined]]);
  });
});

describe('Qwen Code prompts and turns', () => {
  it('start a turn at a typed prompt and end it at an answer with text and no tool call', () => {
    const r = read([
      user(0, 'run it'),
      answer(1, [{ text: 'thinking', thought: true }]),
      answer(2, [{ text: 'I will' }, call('c1', 'run_shell_command')]),
      result(3, 'c1', 'success'),
      answer(4, [{ text: 'done' }]),
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'turnStarted')).toHaveLength(1);
    expect(eventsNamed(r.log, 'turnEnded')).toEqual([['turnEnded', 'completed', t0 + 4]]);
  });

  it('count a mid-turn message as a prompt of the running turn, not notifications or copies', () => {
    const first = user(0, 'go');
    const r = read([
      first,
      user(1, 'also this', { subtype: 'mid_turn_user_message' }),
      user(2, 'task done', { subtype: 'notification', provenance: 'system' }),
      first,
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(2);
    expect(eventsNamed(r.log, 'turnStarted')).toHaveLength(1);
    expect(outcomes(r.log)).toEqual([]);
  });

  it('end a turn still open at the next prompt as interrupted', () => {
    const r = read([user(0, 'a'), answer(1, [call('c1', 'read_file')]), user(5, 'b')]);
    expect(outcomes(r.log)).toEqual(['interrupted']);
    expect(eventsNamed(r.log, 'turnStarted')).toHaveLength(2);
  });

  it('keep a turn open while the CLI retries a failed request, and fail it at the last attempt', () => {
    const retries = Array.from({ length: 6 }, (_, i) => apiError(i + 1, 500));
    expect(outcomes(read([user(0, 'a'), ...retries]).log)).toEqual([]);
    const last = read([user(0, 'a'), ...retries, apiError(7, 500)]);
    expect(last.log.filter(([e]) => e === 'turnEnded')).toEqual([['turnEnded', 'failed', t0 + 7]]);
    expect(eventsNamed(last.log, 'meta')).toContainEqual(['meta', { model: 'qwen3-coder-plus' }]);
  });

  it('fail a turn at once when the error is not retried, but not for a retry that succeeds', () => {
    expect(outcomes(read([user(0, 'a'), apiError(1, 400)]).log)).toEqual(['failed']);
    const recovered = read([
      user(0, 'a'),
      ...Array.from({ length: 6 }, (_, i) => apiError(i + 1, 429)),
      response(8, 'r1'),
      ...Array.from({ length: 6 }, (_, i) => apiError(i + 9, 503)),
      answer(20, [{ text: 'ok' }]),
    ]);
    expect(outcomes(recovered.log)).toEqual(['completed']);
  });

  it('end a turn that gave up after errors as failed at the next prompt, and ignore subagent errors', () => {
    const r = read([user(0, 'a'), apiError(1, 500), apiError(2, 400, { subagent_name: 'explore' }), user(9, 'b')]);
    expect(outcomes(r.log)).toEqual(['failed']);
    // Attempts that failed outside a turn do not count toward the next one's.
    const between = read([
      ...Array.from({ length: 6 }, (_, i) => apiError(i + 1, 500)),
      user(9, 'a'),
      apiError(10, 500),
    ]);
    expect(outcomes(between.log)).toEqual([]);
  });

  it('take an explicit turn result where the CLI writes one', () => {
    const turnResult = (ms: number, state: string) =>
      rec(ms, 'system', { subtype: 'turn_result', systemPayload: { promptId: 'p', state, endedAt: t0 + ms } });
    const r = read([
      user(0, 'a'),
      turnResult(1, 'cancelled'),
      user(2, 'b'),
      turnResult(3, 'error'),
      user(4, 'c'),
      turnResult(5, 'completed'),
      turnResult(6, 'constructor'),
    ]);
    expect(outcomes(r.log)).toEqual(['interrupted', 'failed', 'completed']);
    expect(eventsNamed(r.log, 'skipped')).toEqual([['skipped', 'unknown_shape']]);
  });

  it('count a turn once when its final answer is followed by its turn result', () => {
    const turnResult = (ms: number, state: string) =>
      rec(ms, 'system', { subtype: 'turn_result', systemPayload: { promptId: 'p', state, endedAt: t0 + ms } });
    const r = read([
      answer(0, [{ text: 'before any prompt' }]),
      user(1, 'a'),
      answer(2, [{ text: 'done' }]),
      turnResult(3, 'completed'),
      user(4, 'b'),
    ]);
    expect(outcomes(r.log)).toEqual(['completed']);
  });
});

describe('Qwen Code tools', () => {
  it('classify calls, and count failed or rejected results as errors', () => {
    const r = read([
      user(0, 'a'),
      answer(1, [
        call('c1', 'run_shell_command'),
        call('c2', 'edit'),
        call('c3', 'mcp__github__create_issue'),
        call('c4', 'ask_user_question'),
        call('c5', 'task'),
        call('c6', 'save_memory'),
      ]),
      result(2, 'c1', 'error'),
      result(3, 'c2', 'cancelled'),
      result(4, 'c3', 'success'),
    ]);
    expect(eventsNamed(r.log, 'toolCall').map(([, , c]) => c)).toEqual([
      { tool: 'run_shell_command', kind: 'execute' },
      { tool: 'edit', kind: 'edit' },
      { tool: 'mcp:github', kind: 'other' },
      { tool: 'ask_user_question', kind: 'communicate', waits: 'question' },
      { tool: 'task', kind: 'agent', waits: 'subagents' },
      { tool: 'other', kind: 'other' },
    ]);
    expect(eventsNamed(r.log, 'toolResult')).toEqual([
      ['toolResult', 'c1', true],
      ['toolResult', 'c2', true],
      ['toolResult', 'c3', false],
    ]);
  });

  it('count lines an edit changed, from its diff stats or else its diff', () => {
    const r = read([
      result(1, 'e1', 'success', {
        fileDiff: '--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n+y\n+z',
        fileName: 'a',
        originalContent: 'x',
        newContent: 'y\nz',
        diffStat: { model_added_lines: 5, model_removed_lines: 2, user_added_lines: 1, user_removed_lines: 0 },
      }),
      result(2, 'e2', 'success', {
        fileDiff: '--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n+y\n+z',
        fileName: 'a',
        originalContent: 'x',
        newContent: 'y\nz',
      }),
    ]);
    expect(eventsNamed(r.log, 'lines')).toEqual([
      ['lines', 5, 2],
      ['lines', 2, 1],
    ]);
  });

  it("count a subagent's tool calls for the session, not its prompts, context or turn ends", () => {
    const side = { isSidechain: true, agentId: 'explore-7f3c' };
    const r = read([
      user(0, 'a'),
      answer(1, [call('t1', 'task')]),
      user(2, 'explore the repo', side),
      answer(3, [call('c9', 'glob')], side),
      answer(4, [{ text: 'found it' }], side),
    ]);
    expect(eventsNamed(r.log, 'toolCall').map(([, id]) => id)).toEqual(['t1', 'c9']);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(outcomes(r.log)).toEqual([]);
    expect(eventsNamed(r.log, 'context')).toHaveLength(1);
  });
});

describe('Qwen Code records', () => {
  it('counts a compaction once, passes over records it does not need, and counts a cut one as unreadable', () => {
    const compression = rec(1, 'system', {
      subtype: 'chat_compression',
      systemPayload: { info: { originalTokenCount: 9, newTokenCount: 3 } },
    });
    const skipped = [
      rec(2, 'system', { subtype: 'attribution_snapshot', systemPayload: 'not an object' }),
      uiEvent(3, { 'event.name': 'qwen-code.tool_call', function_name: 'x' }),
      '{"type":"system","subtype":"ui_telemetry","x":',
    ];
    const r = read([compression, compression, ...skipped]);
    expect(eventsNamed(r.log, 'compaction')).toHaveLength(1);
    expect(r.log.filter(([e]) => e !== 'activity' && e !== 'compaction')).toEqual([['skipped', 'parse_error']]);
  });

  it('reads the working directory from the records, not from the lossy folder name', () => {
    const r = read([user(0, 'a', { cwd: '/home/dev/my-app.v2' })]);
    expect(r.log).toContainEqual(['meta', { cwd: '/home/dev/my-app.v2', gitBranch: 'main' }]);
  });

  it('finds chats under every project of the runtime folder, which the environment can move', () => {
    const root = tempDir();
    mkdirSync(join(root, 'projects', '-src-app', 'chats'), { recursive: true });
    writeFileSync(join(root, 'projects', '-src-app', 'chats', 's1.jsonl'), '');
    writeFileSync(join(root, 'projects', '-src-app', 'meta.json'), '{}');
    writeFileSync(join(root, 'usage_record.jsonl'), '');
    expect(qwenCode.listFiles(root)).toEqual([
      { path: join(root, 'projects', '-src-app', 'chats', 's1.jsonl'), sessionId: 's1' },
    ]);
    expect(qwenCode.defaultRoots({ QWEN_RUNTIME_DIR: '/rt' }, '/home/u')).toEqual(['/rt', '/home/u/.qwen']);
  });
});
