import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex } from '../../src/readers/codex/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const file: SessionFile = {
  path: '/h/.codex/sessions/2026/11/30/rollout-x-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl',
  sessionId: 'child',
};
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const line = (ms: number, type: string, payload: object) =>
  JSON.stringify({ timestamp: new Date(t0 + ms).toISOString(), type, payload });
const ev = (ms: number, payload: object) => line(ms, 'event_msg', payload);
const tokens = (ms: number, input: number, cached: number, output: number, reasoning = 0) =>
  ev(ms, {
    type: 'token_count',
    info: {
      total_token_usage: {
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: output,
        reasoning_output_tokens: reasoning,
        total_tokens: input + output,
      },
      last_token_usage: {
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: output,
        total_tokens: input + output,
      },
      model_context_window: 258400,
    },
    rate_limits: null,
  });

function read(lines: string[], r = recorder(), f = file) {
  const state = codex.initialState(f);
  for (const l of lines) codex.readLine(Buffer.from(l), state, f, r.events);
  return r;
}
const sum = (log: unknown[][]) =>
  log
    .filter(([e]) => e === 'usage')
    .map(([, , u]) => u as Usage)
    .reduce(
      (a, u) => ({
        input: a.input + u.input,
        output: a.output + u.output,
        cacheRead: a.cacheRead + u.cacheRead,
        reasoning: a.reasoning + u.reasoning,
      }),
      { input: 0, output: 0, cacheRead: 0, reasoning: 0 },
    );
const meta = (extra: object = {}) =>
  line(0, 'session_meta', { id: 'child', cwd: '/src/app', timestamp: new Date(t0).toISOString(), ...extra });
const model = line(1, 'turn_context', { model: 'gpt-5.2-codex', cwd: '/src/app' });

describe('Codex reader', () => {
  it('reports the plan update_plan carries, items by state', () => {
    const plan = [
      { step: 'a', status: 'completed' },
      { step: 'b', status: 'in_progress' },
      { step: 'c', status: 'pending' },
    ];
    const r = read([
      meta(),
      model,
      line(2, 'response_item', {
        type: 'function_call',
        name: 'update_plan',
        call_id: 'p1',
        arguments: JSON.stringify({ plan }),
      }),
    ]);
    expect(r.log.filter(([e]) => e === 'todos')).toEqual([['todos', { completed: 1, in_progress: 1, pending: 1 }]]);
  });

  it('counts the growth of cumulative totals, ignoring repeated token_count events', () => {
    const r = read([
      meta(),
      model,
      tokens(10, 1000, 400, 50, 10),
      tokens(11, 1000, 400, 50, 10),
      tokens(20, 2500, 1400, 90, 30),
    ]);
    expect(sum(r.log)).toEqual({ input: 1100 - 0, output: 90, cacheRead: 1400, reasoning: 30 });
    expect(r.log.filter(([e]) => e === 'usage')).toHaveLength(2);
  });

  it('skips the parent history a fork replays in its first second', () => {
    const r = read([
      meta({ forked_from_id: 'parent' }),
      model,
      tokens(200, 5000, 1000, 300),
      tokens(400, 7000, 2000, 400), // the parent's, replayed
      ev(3000, { type: 'task_started', turn_id: 't' }),
      tokens(4000, 7600, 2100, 450),
    ]);
    expect(sum(r.log)).toEqual({ input: 500, output: 50, cacheRead: 100, reasoning: 0 });
    expect(r.log.filter(([e]) => e === 'turnStarted')).toHaveLength(1);
  });

  it('reads usage-limit windows and context use', () => {
    const r = read([
      meta(),
      model,
      ev(5, {
        type: 'token_count',
        info: null,
        rate_limits: {
          primary: { used_percent: 42.5, window_minutes: 300, resets_at: 1796010000 },
          secondary: { used_percent: 7, window_minutes: 10080, resets_in_seconds: 3600 },
        },
      }),
      tokens(10, 1000, 400, 50),
    ]);
    expect(r.log).toContainEqual(['usageLimit', '5h', 0.425, 1796010000]);
    expect(r.log).toContainEqual(['usageLimit', '7d', 0.07, (t0 + 5) / 1000 + 3600]);
    expect(r.log).toContainEqual(['context', 'gpt-5.2-codex', 1050, 258400]);
  });

  it('counts prompts from one kind of record only', () => {
    const r = read([
      meta(),
      ev(1, { type: 'user_message', message: 'a' }),
      ev(2, { type: 'item_completed', item: { type: 'UserMessage' } }),
      ev(3, { type: 'user_message', message: 'b' }),
    ]);
    expect(r.log.filter(([e]) => e === 'prompt')).toHaveLength(2);
  });

  it('sees failed commands, MCP errors, questions and permission requests; a command asking to leave the sandbox is not taken as waiting', () => {
    const call = (id: string, name: string, args: object) =>
      line(5, 'response_item', { type: 'function_call', name, call_id: id, arguments: JSON.stringify(args) });
    const out = (id: string, output: string) =>
      line(6, 'response_item', { type: 'function_call_output', call_id: id, output });
    const r = read([
      meta(),
      call('c1', 'exec_command', { cmd: 'false' }),
      out('c1', 'Chunk ID: 1\nProcess exited with code 1\nOutput:\n'),
      call('c2', 'exec_command', { cmd: 'rm -rf x', sandbox_permissions: 'require_escalated' }),
      call('c3', 'request_user_input', { questions: [] }),
      call('c4', 'github__create_issue', {}),
      out('c4', '{"content":[]}'),
      ev(7, { type: 'mcp_tool_call_end', call_id: 'c4', result: { Err: 'boom' } }),
      call('c5', 'request_permissions', { permissions: {} }),
    ]);
    expect(r.log).toContainEqual(['toolResult', 'c1', true]);
    // The approval policy may run it without asking: only the process table can tell.
    expect(r.log).toContainEqual(['toolCall', 'c2', { tool: 'exec_command', kind: 'execute' }]);
    expect(r.log).toContainEqual([
      'toolCall',
      'c5',
      { tool: 'request_permissions', kind: 'communicate', waits: 'approval' },
    ]);
    expect(r.log).toContainEqual([
      'toolCall',
      'c3',
      { tool: 'request_user_input', kind: 'communicate', waits: 'question' },
    ]);
    expect(r.log).toContainEqual(['toolResult', 'c4', false]);
    expect(r.log).toContainEqual(['toolResult', 'c4', true, { tool: 'mcp:github', kind: 'other' }]);
  });

  it("takes a tool named in an mcp__<server> namespace (newer versions) as that server's MCP tool", () => {
    const r = read([
      meta(),
      line(5, 'response_item', {
        type: 'function_call',
        name: 'list',
        namespace: 'mcp__gh',
        call_id: 'n1',
        arguments: '{}',
      }),
    ]);
    expect(r.log).toContainEqual(['toolCall', 'n1', { tool: 'mcp:gh', kind: 'other' }]);
  });

  it('counts lines of applied patches', () => {
    const r = read([
      meta(),
      ev(8, {
        type: 'patch_apply_end',
        call_id: 'p',
        success: true,
        changes: {
          '/src/app/a.ts': {
            type: 'update',
            unified_diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n ctx',
          },
          '/src/app/b.ts': { type: 'add', content: 'x\ny\n' },
        },
      }),
    ]);
    expect(r.log).toContainEqual(['lines', 4, 1]);
  });

  it("reports a subagent's own turn to its parent, which delegates while it runs", () => {
    const sub: SessionFile = {
      path: '/h/.codex/sessions/2026/11/30/rollout-x-01a22a3d-9999-7000-8000-000000000001.jsonl',
      sessionId: '01a22a3d-9999-7000-8000-000000000001',
    };
    const r = read(
      [
        line(1, 'session_meta', {
          id: 'sub',
          cwd: '/src/app',
          source: { subagent: { thread_spawn: { parent_thread_id: 'parent' } } },
        }),
        ev(3000, { type: 'task_started' }),
        ev(4000, { type: 'task_complete' }),
      ],
      recorder(),
      sub,
    );
    expect(r.log.filter(([e]) => e === 'subagent')).toEqual([
      ['subagent', sub.sessionId, true],
      ['subagent', sub.sessionId, false],
    ]);
    expect(r.log.filter(([e]) => e === 'turnStarted' || e === 'turnEnded')).toEqual([]);
  });

  it('marks rollouts under archived_sessions/ as archived', () => {
    const root = tempDir();
    const name = 'rollout-2026-11-30T10-00-00-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl';
    mkdirSync(join(root, 'archived_sessions'));
    writeFileSync(join(root, 'archived_sessions', name), '');
    expect(codex.listFiles(root)).toEqual([
      {
        path: join(root, 'archived_sessions', name),
        sessionId: '01a22a3d-05e6-72a3-9eaf-d395a9e9befd',
        archived: true,
      },
    ]);
  });

  it('ends turns as completed, failed or interrupted', () => {
    const r = read([
      meta(),
      ev(1, { type: 'task_started' }),
      ev(2, { type: 'task_complete', error: { message: 'x' } }),
      ev(3, { type: 'task_started' }),
      ev(4, { type: 'turn_aborted', reason: 'interrupted' }),
    ]);
    expect(r.log.filter(([e]) => e === 'turnEnded').map(([, o]) => o)).toEqual(['failed', 'interrupted']);
  });
});

describe('Codex subagents', () => {
  it('count their tokens and tools for the parent session, not their turns or prompts', () => {
    const r = recorder();
    const state = codex.initialState(file);
    const lines = [
      meta({ source: { subagent: { thread_spawn: { parent_thread_id: 'parent-thread' } } } }),
      model,
      ev(3000, { type: 'task_started' }),
      ev(3001, { type: 'user_message', message: 'explore' }),
      line(3002, 'response_item', { type: 'function_call', name: 'exec_command', call_id: 'c9', arguments: '{}' }),
      tokens(4000, 100, 0, 10),
      ev(5000, { type: 'task_complete' }),
    ];
    for (const l of lines) codex.readLine(Buffer.from(l), state, file, r.events);
    expect(codex.sessionOf!(file, state)).toBe('parent-thread');
    const kinds = r.log.map(([e]) => e);
    expect(kinds).toContain('usage');
    expect(kinds).toContain('toolCall');
    for (const e of ['turnStarted', 'turnEnded', 'prompt']) expect(kinds).not.toContain(e);
    expect(codex.sessionOf!(file, codex.initialState(file))).toBe(file.sessionId);
  });
});
