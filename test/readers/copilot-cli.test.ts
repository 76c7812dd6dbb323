import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const file: SessionFile = { path: '/h/.copilot/session-state/s1/events.jsonl', sessionId: 's1' };
const otelFile: SessionFile = { path: '/h/.copilot/otel/spans.jsonl', sessionId: 'otel:spans.jsonl' };
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
let n = 0;
const line = (ms: number, type: string, data: object, extra: object = {}) =>
  JSON.stringify({ type, data, id: `e${++n}`, timestamp: new Date(t0 + ms).toISOString(), parentId: null, ...extra });
const start = line(0, 'session.start', {
  sessionId: 's1',
  selectedModel: 'gpt-4.1',
  context: { cwd: '/src/app', branch: 'main' },
});
const prompt = (ms: number, extra: object = {}) =>
  line(ms, 'user.message', { content: 'x', delivery: 'idle', ...extra });
const turnStart = (ms: number) => line(ms, 'assistant.turn_start', { turnId: String(ms) });
const turnEnd = (ms: number) => line(ms, 'assistant.turn_end', { turnId: String(ms) });
const answer = (ms: number, tools: [string, string][] = [], extra: object = {}) =>
  line(ms, 'assistant.message', {
    messageId: `m${ms}`,
    model: 'gpt-4.1',
    content: 'y',
    toolRequests: tools.map(([id, name]) => ({ toolCallId: id, name, arguments: {}, type: 'function' })),
    ...extra,
  });
const record = (
  ms: number,
  call: string,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  reasoning: number,
  extra: object = {},
) =>
  line(ms, 'session.usage_record', {
    usage: {
      model: 'gpt-4.1',
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: reasoning,
      apiCallId: call,
      maxPromptTokens: 64000,
      ...extra,
    },
  });
const shutdown = (ms: number, usage: object, extra: object = {}) =>
  line(ms, 'session.shutdown', {
    shutdownType: 'routine',
    modelMetrics: { 'gpt-4.1': { requests: { count: 2, cost: 0 }, usage } },
    ...extra,
  });
const toolStart = (ms: number, id: string, name: string, extra: object = {}) =>
  line(ms, 'tool.execution_start', { toolCallId: id, toolName: name, arguments: { command: 'x' }, ...extra });
const toolDone = (ms: number, id: string, success: boolean, extra: object = {}) =>
  line(ms, 'tool.execution_complete', { toolCallId: id, success, result: { content: '"success":false' }, ...extra });

function read(lines: string[], r = recorder(), f = file, state = copilotCli.initialState(f)) {
  for (const l of lines) copilotCli.readLine(Buffer.from(l), state, f, r.events);
  return { ...r, state };
}
const usages = (log: unknown[][]) =>
  log.filter(([e]) => e === 'usage').map(([, model, u]) => [model, u] as [string, Usage]);
const total = (log: unknown[][]) =>
  usages(log).reduce(
    (a, [, u]) => ({
      input: a.input + u.input,
      output: a.output + u.output,
      cacheRead: a.cacheRead + u.cacheRead,
      cacheWrite: a.cacheWrite + u.cacheWrite,
      reasoning: a.reasoning + u.reasoning,
    }),
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  );

describe('Copilot CLI reader: tokens', () => {
  it('counts each usage record exactly (input excludes cache) and the agreeing shutdown totals not again', () => {
    const r = read([
      start,
      prompt(1),
      record(2, 'c1', 1234, 56, 789, 100, 12),
      record(3, 'c2', 1300, 60, 900, 50, 14),
      shutdown(4, {
        inputTokens: 2534,
        outputTokens: 116,
        cacheReadTokens: 1689,
        cacheWriteTokens: 150,
        reasoningTokens: 26,
      }),
    ]);
    expect(total(r.log)).toEqual({ input: 695, output: 116, cacheRead: 1689, cacheWrite: 150, reasoning: 26 });
    expect(usages(r.log)).toHaveLength(2);
    expect(r.log).toContainEqual(['context', 'gpt-4.1', 1300, 64000]);
  });

  it('with older CLIs counts output per message, then only what the shutdown totals add', () => {
    const r = read([
      start,
      prompt(1),
      answer(2, [], { outputTokens: 12, apiCallId: 'a1' }),
      answer(3, [], { outputTokens: 3, apiCallId: 'a2' }),
    ]);
    // Before shutdown only output is recorded: no input is guessed, and the events say so.
    expect(total(r.log)).toEqual({ input: 0, output: 15, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    for (const e of eventsNamed(r.log, 'usage')) expect(e[6]).toEqual(['input', 'cache_read', 'cache_write']);
    const more = read(
      [
        shutdown(
          4,
          { inputTokens: 100, outputTokens: 15, cacheReadTokens: 5, cacheWriteTokens: 0, reasoningTokens: 4 },
          { codeChanges: { linesAdded: 7, linesRemoved: 2 } },
        ),
      ],
      r,
      file,
      r.state,
    );
    expect(total(more.log)).toEqual({ input: 95, output: 15, cacheRead: 5, cacheWrite: 0, reasoning: 4 });
    expect(more.log).toContainEqual(['lines', 7, 2]);
  });

  it("adds of a resumed run's cumulative shutdown only its growth, and never goes backwards", () => {
    const state = copilotCli.initialState(file);
    const r = recorder();
    const feed = (l: string) => copilotCli.readLine(Buffer.from(l), state, file, r.events);
    feed(start);
    feed(
      shutdown(
        1,
        { inputTokens: 100, outputTokens: 10, cacheReadTokens: 50, cacheWriteTokens: 0, reasoningTokens: 0 },
        { codeChanges: { linesAdded: 3, linesRemoved: 1 } },
      ),
    );
    feed(line(2, 'session.resume', { context: { cwd: '/src/app' } }));
    feed(answer(3, [], { outputTokens: 20, apiCallId: 'a3' }));
    feed(
      shutdown(
        4,
        { inputTokens: 300, outputTokens: 30, cacheReadTokens: 120, cacheWriteTokens: 0, reasoningTokens: 0 },
        { codeChanges: { linesAdded: 5, linesRemoved: 1 } },
      ),
    );
    // A shutdown reporting less (totals of one run only) takes nothing back and adds nothing.
    feed(
      shutdown(5, { inputTokens: 200, outputTokens: 20, cacheReadTokens: 70, cacheWriteTokens: 0, reasoningTokens: 0 }),
    );
    expect(total(r.log)).toEqual({ input: 180, output: 30, cacheRead: 120, cacheWrite: 0, reasoning: 0 });
    expect(eventsNamed(r.log, 'lines')).toEqual([
      ['lines', 3, 1],
      ['lines', 2, 0],
    ]);
  });

  it('counts a call or a shutdown written again in another file (a migrated log) once', () => {
    const lines = [
      start,
      record(2, 'c1', 1000, 50, 400, 0, 0),
      shutdown(3, {
        inputTokens: 1000,
        outputTokens: 50,
        cacheReadTokens: 400,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      }),
    ];
    const r = read(lines);
    read(lines, r, { path: '/h/.copilot/session-state/s1.jsonl', sessionId: 's1' });
    expect(total(r.log)).toEqual({ input: 600, output: 50, cacheRead: 400, cacheWrite: 0, reasoning: 0 });
  });

  it('counts the premium requests of cumulative shutdown totals by their growth', () => {
    const premium = (ms: number, cost: number) =>
      line(ms, 'session.shutdown', {
        shutdownType: 'routine',
        modelMetrics: {
          'claude-sonnet-4.5': { requests: { count: 3, cost }, usage: { inputTokens: 10, outputTokens: 1 } },
        },
      });
    const r = read([start, premium(1, 3), line(2, 'session.resume', {}), premium(3, 4.5), premium(4, 4.5)]);
    expect(eventsNamed(r.log, 'premiumRequests')).toEqual([
      ['premiumRequests', 'claude-sonnet-4.5', 3],
      ['premiumRequests', 'claude-sonnet-4.5', 1.5],
    ]);
  });

  it('counts premium requests recorded as 0 (a model or plan billed none), so that their series exists, at 0, once', () => {
    const free = (ms: number, extra: object = {}) =>
      line(ms, 'session.shutdown', {
        shutdownType: 'routine',
        totalPremiumRequests: 0,
        modelMetrics: {
          'gpt-4.1': { requests: { count: 2, cost: 0 }, usage: { inputTokens: 10, outputTokens: 1 } },
        },
        ...extra,
      });
    expect(eventsNamed(read([start, free(1), free(2)]).log, 'premiumRequests')).toEqual([
      ['premiumRequests', 'gpt-4.1', 0],
    ]);
    // A run that failed before any answer: no model in the totals, none billed to the model selected.
    const failed = line(1, 'session.shutdown', { shutdownType: 'routine', totalPremiumRequests: 0, modelMetrics: {} });
    const selected = line(0, 'session.start', {
      sessionId: 's1',
      selectedModel: 'gpt-4.1',
      context: { cwd: '/src/app' },
    });
    expect(eventsNamed(read([selected, failed]).log, 'premiumRequests')).toEqual([['premiumRequests', 'gpt-4.1', 0]]);
    // Where the harness records no request cost, there is none to count, not 0.
    const unrecorded = line(1, 'session.shutdown', {
      shutdownType: 'routine',
      modelMetrics: { 'gpt-4.1': { requests: { count: 2 }, usage: { inputTokens: 10, outputTokens: 1 } } },
    });
    expect(eventsNamed(read([start, unrecorded]).log, 'premiumRequests')).toEqual([]);
  });

  it('reads premium-request quotas as usage-limit windows', () => {
    const r = read([
      start,
      record(1, 'c1', 10, 1, 0, 0, 0, {
        quotaSnapshots: {
          premium_interactions: { usedRequests: 75, entitlementRequests: 300, resetDate: '2026-12-01T00:00:00Z' },
          chat: { usedRequests: 0, entitlementRequests: -1, isUnlimitedEntitlement: true },
        },
      }),
    ]);
    expect(eventsNamed(r.log, 'usageLimit')).toEqual([
      ['usageLimit', 'premium_interactions', 0.25, Date.UTC(2026, 11, 1) / 1000],
    ]);
  });
});

describe('Copilot CLI reader: turns and prompts', () => {
  it('ends a turn at the round whose answer asks for no tool, not at a round that ran tools', () => {
    const r = read([
      start,
      prompt(1),
      turnStart(2),
      answer(3, [['t1', 'bash']]),
      toolStart(4, 't1', 'bash'),
      toolDone(5, 't1', true),
      turnEnd(6),
    ]);
    expect(eventsNamed(r.log, 'turnEnded')).toEqual([]);
    const more = read([turnStart(7), answer(8), turnEnd(9)], r, file, r.state);
    expect(eventsNamed(more.log, 'turnEnded')).toEqual([['turnEnded', 'completed', t0 + 9]]);
  });

  it('fails the turn on session.error, interrupts it on abort or when the process ends mid-turn', () => {
    expect(
      eventsNamed(
        read([
          start,
          prompt(1),
          turnStart(2),
          turnEnd(3),
          line(4, 'session.error', { errorType: 'query', statusCode: 500 }),
        ]).log,
        'turnEnded',
      ),
    ).toEqual([['turnEnded', 'failed', t0 + 4]]);
    expect(
      eventsNamed(read([start, prompt(1), line(2, 'abort', { reason: 'user_initiated' })]).log, 'turnEnded'),
    ).toEqual([['turnEnded', 'interrupted', t0 + 2]]);
    expect(
      eventsNamed(
        read([start, prompt(1), shutdown(2, {}, { shutdownType: 'error', modelMetrics: {} })]).log,
        'turnEnded',
      ),
    ).toEqual([['turnEnded', 'failed', t0 + 2]]);
  });

  it('counts typed prompts only: not skill injections, autopilot continuations or subagent messages', () => {
    const r = read([
      start,
      prompt(1),
      prompt(2, { delivery: 'steering' }),
      prompt(3, { source: 'skill-pdf' }),
      prompt(4, { isAutopilotContinuation: true }),
      prompt(5, { parentToolCallId: 't9' }),
      line(6, 'user.message', { content: 'z' }, { agentId: 'a1' }),
    ]);
    expect(eventsNamed(r.log, 'prompt')).toEqual([
      ['prompt', t0 + 1],
      ['prompt', t0 + 2],
    ]);
  });

  it("ignores a subagent's rounds for the turn", () => {
    const r = read([
      start,
      prompt(1),
      turnStart(2),
      answer(3, [['t1', 'task']]),
      toolStart(4, 't1', 'task'),
      answer(5, [], { parentToolCallId: 't1' }),
      line(6, 'assistant.turn_end', { turnId: 's' }, { agentId: 'a1' }),
      turnEnd(7),
    ]);
    expect(eventsNamed(r.log, 'turnEnded')).toEqual([]);
    expect(r.log).toContainEqual(['toolCall', 't1', { tool: 'task', kind: 'agent', waits: 'subagents' }]);
  });
});

describe('Copilot CLI reader: tools', () => {
  it('names tools by kind, MCP tools by server, and sees failures and failed commands', () => {
    const r = read([
      start,
      toolStart(1, 't1', 'view'),
      toolDone(2, 't1', false),
      toolStart(3, 't2', 'bash'),
      toolDone(4, 't2', true, { shellExecution: { exitCode: 2 } }),
      toolStart(5, 't3', 'bash'),
      toolDone(6, 't3', true, { shellExecution: { exitCode: 0 } }),
      toolStart(7, 't4', 'github-create_issue', { mcpServerName: 'github', mcpToolName: 'create_issue' }),
      toolDone(8, 't4', true),
      toolStart(9, 't5', 'ask_user'),
      toolStart(10, 't6', 'frobnicate'),
    ]);
    expect(eventsNamed(r.log, 'toolCall')).toEqual([
      ['toolCall', 't1', { tool: 'view', kind: 'read' }],
      ['toolCall', 't2', { tool: 'bash', kind: 'execute' }],
      ['toolCall', 't3', { tool: 'bash', kind: 'execute' }],
      ['toolCall', 't4', { tool: 'mcp:github', kind: 'other' }],
      ['toolCall', 't5', { tool: 'ask_user', kind: 'communicate', waits: 'question' }],
      ['toolCall', 't6', { tool: 'other', kind: 'other' }],
    ]);
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([
      ['t1', true],
      ['t2', true],
      ['t3', false],
      ['t4', false],
    ]);
  });

  it('shows a call waiting for approval, counts it once when approved and as an error when denied', () => {
    const ask = (ms: number, req: string, id: string) =>
      line(ms, 'permission.requested', { requestId: req, permissionRequest: { kind: 'shell', toolCallId: id } });
    const answerPermission = (ms: number, req: string, kind: string) =>
      line(ms, 'permission.completed', { requestId: req, result: { kind } });
    const r = read([
      start,
      prompt(1),
      answer(2, [
        ['t1', 'bash'],
        ['t2', 'edit'],
      ]),
      ask(3, 'p1', 't1'),
      answerPermission(4, 'p1', 'approved'),
      toolStart(5, 't1', 'bash'),
      toolDone(6, 't1', true),
      ask(7, 'p2', 't2'),
      answerPermission(8, 'p2', 'denied-interactively-by-user'),
      toolDone(9, 't2', false),
    ]);
    expect(eventsNamed(r.log, 'toolCall')).toEqual([
      ['toolCall', 't1', { tool: 'bash', kind: 'execute', waits: 'approval' }],
      ['toolCall', 't2', { tool: 'edit', kind: 'edit', waits: 'approval' }],
    ]);
    expect(eventsNamed(r.log, 'toolWaits')).toEqual([['toolWaits', 't1', undefined]]);
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([
      ['t1', false],
      ['t2', true],
    ]);
  });

  it('1.0.102: a permission request for a call already started makes it wait, without counting it again', () => {
    const ask = line(4, 'permission.requested', {
      requestId: 'p1',
      permissionRequest: { kind: 'shell', toolCallId: 't1' },
    });
    const r = read([
      start,
      prompt(1),
      answer(2, [['t1', 'bash']]),
      toolStart(3, 't1', 'bash'),
      ask,
      line(5, 'permission.completed', { requestId: 'p1', result: { kind: 'approved' } }),
      toolDone(6, 't1', true),
    ]);
    expect(eventsNamed(r.log, 'toolCall')).toEqual([['toolCall', 't1', { tool: 'bash', kind: 'execute' }]]);
    expect(eventsNamed(r.log, 'toolWaits')).toEqual([
      ['toolWaits', 't1', 'approval'],
      ['toolWaits', 't1', undefined],
    ]);
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([['t1', false]]);
  });
});

describe('Copilot CLI reader: OpenTelemetry file export', () => {
  const span = (attributes: object, extra: object = {}) =>
    JSON.stringify({ type: 'span', name: 'chat gpt-4.1', endTime: [1796000000, 500_000_000], attributes, ...extra });
  const chat = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.conversation.id': 's1',
    'gen_ai.response.model': 'gpt-4.1',
    'gen_ai.usage.input_tokens': 1000,
    'gen_ai.usage.output_tokens': 40,
    'gen_ai.usage.cache_read.input_tokens': 600,
    'gen_ai.usage.cache_write.input_tokens': 100,
    'gen_ai.usage.reasoning.output_tokens': 8,
  };

  it('counts chat spans for the session they name, not agent spans that repeat their totals', () => {
    const r = read(
      [
        span({ ...chat, 'gen_ai.response.id': 'r1' }),
        span({ ...chat, 'gen_ai.operation.name': 'invoke_agent' }),
        JSON.stringify({ type: 'span', name: 'execute_tool bash', attributes: { 'gen_ai.tool.name': 'bash' } }),
      ],
      recorder(),
      otelFile,
    );
    expect(usages(r.log)).toEqual([
      ['gpt-4.1', { input: 300, output: 40, cacheRead: 600, cacheWrite: 100, cacheWrite1h: 0, reasoning: 8 }],
    ]);
    expect(r.log).toContainEqual(['activity', 1796000000500]);
    expect(copilotCli.sessionOf!(otelFile, r.state)).toBe('s1');
  });

  it('reads OTLP/JSON attributes', () => {
    const kv = Object.entries(chat).map(([key, v]) => ({
      key,
      value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v },
    }));
    const r = read(
      [JSON.stringify({ name: 'chat', endTimeUnixNano: '1796000000000000000', attributes: kv })],
      recorder(),
      otelFile,
    );
    expect(total(r.log)).toEqual({ input: 300, output: 40, cacheRead: 600, cacheWrite: 100, reasoning: 8 });
  });

  it('reports a cache write that is no count as it is, not the older attribute in its place', () => {
    const r = read(
      [
        span({
          ...chat,
          'gen_ai.usage.cache_write.input_tokens': '12a',
          'gen_ai.usage.cache_creation.input_tokens': 100,
        }),
      ],
      recorder(),
      otelFile,
    );
    expect(usages(r.log).map(([, u]) => (u as { cacheWrite: number }).cacheWrite)).toEqual([Number.NaN]);
  });

  it('does not count a call twice when the log records it too', () => {
    const r = recorder();
    read([start, record(1, 'r1', 1000, 40, 600, 100, 8)], r);
    read([span({ ...chat, 'gen_ai.response.id': 'r1' })], r, otelFile);
    expect(usages(r.log)).toHaveLength(1);
  });

  it('leaves out the shutdown totals of an older log some of whose calls the export counted', () => {
    const r = recorder();
    read([span({ ...chat, 'gen_ai.response.id': 'a1' })], r, otelFile);
    const log = read(
      [
        start,
        answer(1, [], { outputTokens: 40, apiCallId: 'a1' }),
        shutdown(2, {
          inputTokens: 1000,
          outputTokens: 40,
          cacheReadTokens: 600,
          cacheWriteTokens: 100,
          reasoningTokens: 8,
        }),
      ],
      r,
    );
    expect(total(log.log)).toEqual({ input: 300, output: 40, cacheRead: 600, cacheWrite: 100, reasoning: 8 });
    expect(log.state.external).toBe(true);
  });
});

describe('Copilot CLI reader: files and processes', () => {
  it('lists both log layouts, the export and the store, nothing else', () => {
    const root = tempDir();
    mkdirSync(join(root, 'session-state', 'u1'), { recursive: true });
    mkdirSync(join(root, 'session-state', 'u2'), { recursive: true });
    mkdirSync(join(root, 'otel'));
    writeFileSync(join(root, 'session-state', 'u1', 'events.jsonl'), '');
    writeFileSync(join(root, 'session-state', 'u1', 'workspace.yaml'), '');
    writeFileSync(join(root, 'session-state', 'old.jsonl'), '');
    writeFileSync(join(root, 'otel', 'copilot.jsonl'), '');
    for (const name of ['session-store.db', 'config.json', 'mcp-config.json']) writeFileSync(join(root, name), '');
    const files = copilotCli
      .listFiles(root)
      .map((f) => [f.path.slice(root.length + 1), f.sessionId, f.store ?? false])
      .sort();
    expect(files).toEqual([
      ['otel/copilot.jsonl', 'otel:copilot.jsonl', false],
      ['session-state/old.jsonl', 'old', false],
      ['session-state/u1/events.jsonl', 'u1', false],
      ['session-store.db', 'session-store.db', true],
    ]);
  });

  it("hands the process scan each lock file's pid and session (whether it runs is the process table's to say)", () => {
    const root = tempDir();
    mkdirSync(join(root, 'session-state', 's1'), { recursive: true });
    writeFileSync(join(root, 'session-state', 's1', 'inuse.4242.lock'), '4242');
    writeFileSync(join(root, 'session-state', 's1', 'inuse.4242.hold'), '');
    expect(copilotCli.registry!(root)).toEqual([{ sessionId: 's1', pid: 4242 }]);
  });

  it('skips bad lines with a reason', () => {
    const r = read([
      'not json',
      '{"no":"type"}',
      '{"type":"session.usage_record","data":{"usage":{}}}',
      '{"type":"user.message"}',
      '{"type":"tool.execution_start","data":{}}',
    ]);
    expect(eventsNamed(r.log, 'skipped').map(([, reason]) => reason)).toEqual([
      'parse_error',
      'unknown_shape',
      'unknown_shape',
      'unknown_shape',
      'unknown_shape',
    ]);
  });
});
