import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { recorder } from '../helpers/events.js';
import { pythonJsonLines } from '../helpers/json.js';
import { FIXTURES } from '../helpers/run.js';

const main: SessionFile = { path: '/h/.claude/projects/-src-app/s1.jsonl', sessionId: 's1' };
const sub: SessionFile = { path: '/h/.claude/projects/-src-app/s1/subagents/agent-a1.jsonl', sessionId: 's1' };

const ts = (s: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();
const assistant = (
  id: string,
  usage: object,
  extra: object = {},
  content: object[] = [{ type: 'text', text: 'x' }],
  s = 1,
) =>
  JSON.stringify({
    type: 'assistant',
    timestamp: ts(s),
    cwd: '/src/app',
    message: { id, model: 'claude-sonnet-4-5', content, stop_reason: null, usage },
    ...extra,
  });
const prompt = (uuid: string, text = 'do it', s = 0) =>
  JSON.stringify({ type: 'user', uuid, timestamp: ts(s), cwd: '/src/app', message: { role: 'user', content: text } });

function read(file: SessionFile, lines: string[], r = recorder(), state = claudeCode.initialState(file)) {
  for (const l of lines) claudeCode.readLine(Buffer.from(l), state, file, r.events);
  return r;
}

const total = (log: unknown[][]) =>
  log
    .filter(([e]) => e === 'usage')
    .reduce<Usage>(
      (a, [, , u]) => {
        const x = u as Usage;
        return {
          input: a.input + x.input,
          output: a.output + x.output,
          cacheRead: a.cacheRead + x.cacheRead,
          cacheWrite: a.cacheWrite + x.cacheWrite,
          cacheWrite1h: a.cacheWrite1h + x.cacheWrite1h,
          reasoning: a.reasoning + x.reasoning,
        };
      },
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    );

describe('Claude Code reader', () => {
  it("takes a Windows session's folder from its records, never from the lossy project slug (`C--Users-…`)", () => {
    const file: SessionFile = {
      path: 'C:\\Users\\me\\.claude\\projects\\C--Users-me-src-my-shop\\s1.jsonl',
      sessionId: 's1',
    };
    const cwd = 'C:\\Users\\me\\src\\my-shop';
    const r = read(file, [
      JSON.stringify({
        type: 'user',
        uuid: 'u1',
        timestamp: ts(0),
        cwd,
        gitBranch: 'main',
        message: { role: 'user', content: 'go' },
      }),
    ]);
    expect(r.log.filter(([e]) => e === 'meta')).toEqual([['meta', { cwd, gitBranch: 'main' }]]);
  });

  it('reports the plan a TodoWrite call writes, items by state', () => {
    const todos = [
      { content: 'a', status: 'completed' },
      { content: 'b', status: 'in_progress' },
      { content: 'c', status: 'pending' },
    ];
    const r = read(main, [
      assistant('m9', { input_tokens: 1, output_tokens: 1 }, {}, [
        { type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos } },
      ]),
    ]);
    expect(r.log.filter(([e]) => e === 'todos')).toEqual([['todos', { completed: 1, in_progress: 1, pending: 1 }]]);
  });

  it('counts a streamed response once, from its largest record (placeholders of old versions included)', () => {
    const r = read(main, [
      assistant('m1', {
        input_tokens: 3,
        output_tokens: 1,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 40,
      }),
      assistant('m1', {
        input_tokens: 3,
        output_tokens: 1,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 40,
      }),
      assistant('m1', {
        input_tokens: 3,
        output_tokens: 90,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 40,
        output_tokens_details: { thinking_tokens: 30 },
      }),
      assistant('m1', {
        input_tokens: 3,
        output_tokens: 90,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 40,
      }),
    ]);
    expect(total(r.log)).toEqual({
      input: 3,
      output: 90,
      cacheRead: 500,
      cacheWrite: 40,
      cacheWrite1h: 0,
      reasoning: 30,
    });
  });

  it('splits one-hour cache writes and falls back to the breakdown when the total is missing', () => {
    const r = read(main, [
      assistant('m2', {
        input_tokens: 1,
        output_tokens: 2,
        cache_creation_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 },
      }),
    ]);
    expect(total(r.log)).toMatchObject({ cacheWrite: 30, cacheWrite1h: 20 });
  });

  it('does not count a response again when a side chain or a resumed file replays it', () => {
    const r = read(main, [assistant('m3', { input_tokens: 10, output_tokens: 5 })]);
    read(sub, [assistant('m3', { input_tokens: 10, output_tokens: 5 }, { isSidechain: true })], r);
    expect(total(r.log).input).toBe(10);
  });

  it('counts the tool calls of a response once, also when its lines are replayed elsewhere', () => {
    const text = assistant('m7', { input_tokens: 2, output_tokens: 9 }, {}, [{ type: 'text', text: 'x' }]);
    const call = assistant('m7', { input_tokens: 2, output_tokens: 9 }, {}, [
      { type: 'tool_use', id: 't7', name: 'Bash', input: {} },
    ]);
    const r = read(main, [text, call]);
    read(sub, [text, call], r);
    expect(r.log.filter(([e]) => e === 'toolCall')).toEqual([['toolCall', 't7', { tool: 'Bash', kind: 'execute' }]]);
  });

  it('reads results of several tools in one record, and edits among them', () => {
    const r = read(main, [
      JSON.stringify({
        type: 'user',
        timestamp: ts(3),
        message: {
          content: [
            { tool_use_id: 'a', type: 'tool_result', content: 'fine', is_error: false },
            { tool_use_id: 'b', type: 'tool_result', content: 'boom', is_error: true },
          ],
        },
        toolUseResult: { structuredPatch: [{ lines: ['+x'] }] },
      }),
    ]);
    expect(r.log.filter(([e]) => e === 'toolResult' || e === 'lines')).toEqual([
      ['toolResult', 'a', false],
      ['toolResult', 'b', true],
      ['lines', 1, 0],
    ]);
  });

  it("folds a subagent's tokens and tools into its session but not its prompts, turns or context", () => {
    const r = read(sub, [
      prompt('p-sub', 'explore the code'),
      assistant('m4', { input_tokens: 7, output_tokens: 3 }, { isSidechain: true }, [
        { type: 'tool_use', id: 't1', name: 'Grep', input: {} },
      ]),
      JSON.stringify({
        type: 'assistant',
        timestamp: ts(2),
        message: {
          id: 'm5',
          model: 'claude-haiku-4-5',
          stop_reason: 'end_turn',
          content: [],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
    ]);
    const kinds = r.log.map(([e]) => e);
    expect(total(r.log).input).toBe(8);
    expect(kinds).toContain('toolCall');
    expect(kinds).not.toContain('prompt');
    expect(kinds).not.toContain('turnEnded');
    expect(kinds).not.toContain('context');
  });

  it('tells typed prompts from injected text, tool results and interrupts', () => {
    const r = read(main, [
      prompt('u1', 'fix the bug'),
      prompt('u2', '<command-name>/clear</command-name>'),
      JSON.stringify({
        type: 'user',
        uuid: 'u3',
        isMeta: true,
        timestamp: ts(1),
        message: { content: 'Caveat: meta' },
      }),
      JSON.stringify({
        type: 'user',
        uuid: 'u4',
        timestamp: ts(2),
        message: { content: [{ type: 'tool_result', tool_use_id: 't9', content: 'no', is_error: true }] },
      }),
      JSON.stringify({
        type: 'user',
        uuid: 'u5',
        timestamp: ts(3),
        message: { content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      }),
      prompt('u1', 'fix the bug'), // replayed by a resume
    ]);
    expect(r.log.filter(([e]) => e === 'prompt')).toHaveLength(1);
    expect(r.log).toContainEqual(['toolResult', 't9', true]);
    expect(r.log).toContainEqual(['turnEnded', 'interrupted', Date.parse(ts(3))]);
  });

  it('counts a prompt typed while the agent works (a queued command), but not shell commands or notifications', () => {
    const queued = (uuid: string, attachment: object) =>
      JSON.stringify({
        parentUuid: 'p',
        isSidechain: false,
        attachment: { type: 'queued_command', ...attachment },
        type: 'attachment',
        uuid,
        timestamp: ts(8),
      });
    const r = read(main, [
      queued('q1', { prompt: 'also fix the tests', commandMode: 'prompt' }),
      queued('q2', { prompt: 'ls', commandMode: 'bash' }),
      queued('q3', { prompt: 'done', origin: { kind: 'task-notification' } }),
      queued('q1', { prompt: 'also fix the tests', commandMode: 'prompt' }),
    ]);
    expect(r.log.filter(([e]) => e === 'prompt')).toEqual([['prompt', Date.parse(ts(8))]]);
  });

  it('reads a large tool result from its bytes', () => {
    const big = 'x'.repeat(100_000);
    const r = read(main, [
      JSON.stringify({
        type: 'user',
        timestamp: ts(4),
        message: { content: [{ tool_use_id: 'tb', type: 'tool_result', content: big, is_error: true }] },
      }),
    ]);
    expect(r.log).toContainEqual(['toolResult', 'tb', true]);
  });

  it('counts lines changed by edits and new files', () => {
    const r = read(main, [
      JSON.stringify({
        type: 'user',
        timestamp: ts(5),
        message: { content: [{ type: 'tool_result', tool_use_id: 'e1', content: 'ok' }] },
        toolUseResult: { filePath: '/src/app/a.ts', structuredPatch: [{ lines: [' a', '-b', '+c', '+d'] }] },
      }),
      JSON.stringify({
        type: 'user',
        timestamp: ts(6),
        message: { content: [{ type: 'tool_result', tool_use_id: 'e2', content: 'ok' }] },
        toolUseResult: { type: 'create', filePath: '/src/app/b.ts', content: 'one\ntwo\nthree\n', structuredPatch: [] },
      }),
    ]);
    expect(r.log.filter(([e]) => e === 'lines')).toEqual([
      ['lines', 2, 1],
      ['lines', 3, 0],
    ]);
  });

  it('names MCP tools by server and marks waiting tools', () => {
    const r = read(main, [
      assistant('m6', { input_tokens: 1, output_tokens: 1 }, {}, [
        { type: 'tool_use', id: 'a', name: 'mcp__github__create_issue', input: {} },
        { type: 'tool_use', id: 'b', name: 'AskUserQuestion', input: {} },
        { type: 'tool_use', id: 'c', name: 'Agent', input: {} },
        { type: 'tool_use', id: 'd', name: 'SomethingNew', input: {} },
      ]),
    ]);
    expect(r.log.filter(([e]) => e === 'toolCall').map(([, , c]) => c)).toEqual([
      { tool: 'mcp:github', kind: 'other' },
      { tool: 'AskUserQuestion', kind: 'communicate', waits: 'question' },
      { tool: 'Agent', kind: 'agent', waits: 'subagents' },
      { tool: 'other', kind: 'other' },
    ]);
  });

  it('counts a compaction once, also when replayed', () => {
    const boundary = JSON.stringify({
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'c1',
      timestamp: ts(7),
      compactMetadata: { trigger: 'auto', preTokens: 150000 },
    });
    const r = read(main, [boundary, boundary]);
    expect(r.log.filter(([e]) => e === 'compaction')).toHaveLength(1);
  });

  it('ends a turn as failed on a synthetic API error answer and counts no tokens for it', () => {
    const r = read(main, [
      prompt('u9'),
      JSON.stringify({
        type: 'assistant',
        isApiErrorMessage: true,
        timestamp: ts(9),
        message: {
          id: 'x',
          model: '<synthetic>',
          content: [{ type: 'text', text: 'API Error' }],
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    ]);
    expect(r.log).toContainEqual(['turnEnded', 'failed', Date.parse(ts(9))]);
    expect(r.log.filter(([e]) => e === 'usage')).toEqual([]);
  });
});

describe('Claude Code reader, bad and unusual lines', () => {
  it('counts every line it cannot use, by reason', () => {
    const bad = [
      '\u0000\u0000\u0000\u0000',
      '\u00ff\u00fe\u0001binary',
      '{}',
      'null',
      '42',
      '"text"',
      '[1,2]',
      '{"type":"assistant"',
      '{"type":"user"} x',
      '{"type":"assistant","message":{"model":"m","usage":{}}, }',
      '{"timestamp":"2026-11-30T10:00:00Z"}',
    ];
    const r = read(main, bad);
    expect(r.log.filter(([e]) => e === 'skipped').map(([, reason]) => reason)).toEqual([
      'parse_error',
      'parse_error',
      'unknown_shape',
      'parse_error',
      'parse_error',
      'parse_error',
      'parse_error',
      'parse_error',
      'parse_error',
      'parse_error',
      'unknown_shape',
    ]);
  });

  it('reads JSON written with spaces (as Python writes it) exactly as compact JSON', () => {
    const files = readdirSync(join(FIXTURES, 'captures'), { recursive: true, encoding: 'utf8' })
      .filter((p) => p.startsWith('claude-code') && p.endsWith('.jsonl'))
      .map((p) => join(FIXTURES, 'captures', p));
    expect(files.length).toBeGreaterThan(3);
    let usages = 0;
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      const file = { path, sessionId: 's' };
      const compact = read(file, text.split('\n').filter(Boolean));
      const spaced = read(file, pythonJsonLines(text).split('\n').filter(Boolean));
      expect(spaced.log).toEqual(compact.log);
      usages += compact.log.filter(([e]) => e === 'usage').length;
    }
    expect(usages).toBeGreaterThan(3);
  });
});
