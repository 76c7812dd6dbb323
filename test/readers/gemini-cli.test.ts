import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { geminiCli, type GeminiState } from '../../src/readers/gemini-cli/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { eventsNamed, recorder, storeTurns, type Recorded } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const file: SessionFile = {
  path: '/h/.gemini/tmp/app/chats/session-2026-11-30T10-00-5da0c0d6.jsonl',
  sessionId: '5da0c0d6',
};
const subagent: SessionFile = {
  path: '/h/.gemini/tmp/app/chats/5da0c0d6-full-parent-id/sub-1.jsonl',
  sessionId: '5da0c0d6-full-parent-id',
};
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const j = (o: object) => JSON.stringify(o);

const header = (sessionId = '5da0c0d6-full-id', kind = 'main') =>
  j({ sessionId, projectHash: 'ab', startTime: at(0), lastUpdated: at(0), kind });
const user = (id: string, s: number, text: string) => j({ id, timestamp: at(s), type: 'user', content: [{ text }] });
const toolResponse = (id: string, s: number, callId: string) =>
  j({
    id,
    timestamp: at(s),
    type: 'user',
    content: [{ functionResponse: { id: callId, name: 'run_shell_command', response: { output: 'x' } } }],
  });
const tokens = (input: number, output: number, cached = 0, thoughts = 0, tool = 0) => ({
  input,
  output,
  cached,
  thoughts,
  tool,
  total: input + output + thoughts + tool,
});
const gemini = (id: string, s: number, extra: object = {}) =>
  j({
    id,
    timestamp: at(s),
    type: 'gemini',
    content: 'text',
    thoughts: [],
    tokens: tokens(1000, 50, 400, 10),
    model: 'gemini-2.5-flash',
    ...extra,
  });
const call = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  args: {},
  status: 'success',
  timestamp: at(0),
  result: [],
  ...extra,
});
const set = (o: object) => j({ $set: o });

function read(lines: string[], f = file, r = recorder(), state: GeminiState = geminiCli.initialState(f)) {
  for (const l of lines) geminiCli.readLine(Buffer.from(l), state, f, r.events);
  return { ...r, state };
}
const turnEvents = (log: unknown[][]) =>
  log
    .filter(([e]) => ['prompt', 'turnStarted', 'turnEnded', 'turnReopened'].includes(e as string))
    .map(([e, a]) => (e === 'turnEnded' ? `${e}:${String(a)}` : e));
/** The turns the events make in a real store: each counted turn as outcome@start-end (seconds), and whether one is open. */
const turns = (log: Recorded[]) => {
  const t = storeTurns(log);
  const s = (ms: number | undefined) => (ms === undefined ? '?' : (ms - t0) / 1000);
  return { counted: t.counted.map((c) => `${c.outcome}@${s(c.startedAt)}-${s(c.endedAt)}`), open: t.open };
};
const sum = (log: unknown[][]) =>
  eventsNamed(log, 'usage')
    .map(([, , u]) => u as Usage)
    .reduce(
      (a, u) => ({
        input: a.input + u.input,
        output: a.output + u.output,
        cacheRead: a.cacheRead + u.cacheRead,
        cacheWrite: a.cacheWrite + u.cacheWrite,
        reasoning: a.reasoning + u.reasoning,
      }),
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    );

describe('Gemini CLI reader', () => {
  it('reports the plan write_todos carries, items by state (blocked ones still to do)', () => {
    const todos = [
      { description: 'a', status: 'completed' },
      { description: 'b', status: 'blocked' },
      { description: 'c', status: 'in_progress' },
    ];
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { content: '', toolCalls: [call('c1', 'write_todos', { args: { todos } })] }),
    ]);
    expect(eventsNamed(r.log, 'todos')).toEqual([['todos', { completed: 1, pending: 1, in_progress: 1 }]]);
  });

  it("counts tokens in the contract's semantics and the prompt as context", () => {
    const r = read([header(), user('u1', 1, 'go'), gemini('g1', 2, { tokens: tokens(1234, 56, 789, 12, 30) })]);
    // input excludes cached and adds tool-use prompt tokens; output includes thoughts.
    expect(sum(r.log)).toEqual({ input: 1234 - 789 + 30, output: 68, cacheRead: 789, cacheWrite: 0, reasoning: 12 });
    expect(r.log).toContainEqual(['usage', 'gemini-2.5-flash', expect.anything(), 1264, t0 + 2000]);
    expect(r.log).toContainEqual(['context', 'gemini-2.5-flash', 1264]);
    expect(r.log).toContainEqual(['meta', { model: 'gemini-2.5-flash' }]);
  });

  it('counts a re-appended answer once, and a later copy with other numbers by its difference, never less', () => {
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { tokens: null }), // tokens attached later
      gemini('g1', 2, { tokens: tokens(1000, 50, 400, 10) }),
      gemini('g1', 2, { tokens: tokens(1000, 50, 400, 10), toolCalls: [call('c1', 'read_file')] }),
      gemini('g1', 2, { tokens: tokens(1200, 60, 400, 10) }),
      gemini('g1', 2, { tokens: tokens(900, 10, 300, 0) }), // smaller in every type: nothing
    ]);
    expect(sum(r.log)).toEqual({ input: 800, output: 70, cacheRead: 400, cacheWrite: 0, reasoning: 10 });
    expect(eventsNamed(r.log, 'usage')).toHaveLength(2);
  });

  it('does not count again what a migrated or rewritten file repeats', () => {
    const lines = [
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { toolCalls: [call('c1', 'glob')] }),
      gemini('g2', 3),
    ];
    const r = read(lines);
    const again = read(lines, { ...file, path: file.path.replace('.jsonl', '-copy.jsonl') }, r);
    expect(sum(again.log)).toEqual({ input: 1200, output: 120, cacheRead: 800, cacheWrite: 0, reasoning: 20 });
    expect(eventsNamed(again.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(again.log, 'toolCall')).toHaveLength(1);
  });

  it("lets a file that repeats an earlier one's messages neither end nor reopen the session's turn before a prompt of its own", () => {
    const r = read([header(), user('u1', 1, 'go'), gemini('g1', 2, { content: 'Done.' }), user('u2', 5, 'more')]);
    const copy = { ...file, path: file.path.replace('.jsonl', '-copy.jsonl') };
    const c = read(
      [
        header(),
        user('u1', 1, 'go'),
        gemini('g0', 1, { content: '', toolCalls: [call('c1', 'glob')] }),
        toolResponse('t1', 1, 'c1'),
        gemini('g1', 2, { content: 'Done.' }),
      ],
      copy,
      r,
    );
    expect(turns(r.log)).toEqual({ counted: ['completed@1-2'], open: true });
    // Its own prompt's turn is its to end.
    read([user('u3', 9, 'and more'), gemini('g3', 10, { content: 'Done.' })], copy, r, c.state);
    expect(turns(r.log)).toEqual({ counted: ['completed@1-2', 'completed@5-10'], open: false });
  });

  it("ends a turn at an answer in text, and reopens it when that answer's tool calls follow", () => {
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { content: 'I will run a command.' }),
      set({ lastUpdated: at(2) }),
      gemini('g1', 2, { content: 'I will run a command.', toolCalls: [call('c1', 'run_shell_command')] }),
      toolResponse('u2', 3, 'c1'),
      gemini('g2', 4, { content: 'Done.' }),
    ]);
    // One turn, which ends at the last answer (the first one's end was premature).
    expect(turns(r.log)).toEqual({ counted: ['completed@1-2'], open: false });
    expect(storeTurns(r.log).last).toMatchObject({ outcome: 'completed', startedAt: t0 + 1000, endedAt: t0 + 4000 });
    // In between, while the tool ran, the turn was open.
    expect(turns(r.log.slice(0, r.log.findIndex(([e]) => e === 'turnReopened') + 1)).open).toBe(true);
  });

  it('does not end a turn at an answer without text (its tool calls are still to be written)', () => {
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { content: '' }),
      gemini('g1', 2, { content: '', toolCalls: [call('c1', 'read_file')] }),
      toolResponse('u2', 3, 'c1'),
      gemini('g2', 4),
    ]);
    expect(turns(r.log)).toEqual({ counted: ['completed@1-4'], open: false });
  });

  it('fails the turn whose prompt a rewrite of the message list drops before any answer', () => {
    const context = { id: 'ctx', timestamp: at(0), type: 'user', content: [{ text: '<session_context>…' }] };
    const failed = read([
      header(),
      set({ messages: [context] }),
      user('u1', 1, 'Say hello'),
      set({ lastUpdated: at(1) }),
      set({ messages: [context], lastUpdated: at(2) }),
    ]);
    expect(turns(failed.log)).toEqual({ counted: ['failed@1-2'], open: false });

    const kept = read([header(), user('u1', 1, 'go'), set({ messages: [context, { id: 'u1', type: 'user' }] })]);
    expect(turns(kept.log)).toEqual({ counted: [], open: true });
    // Once answered, a rewrite (compression, masking) is not a failure.
    const answered = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { content: '', toolCalls: [call('c1', 'glob')] }),
      set({ messages: [context] }),
    ]);
    expect(turns(answered.log)).toEqual({ counted: [], open: true });
  });

  it('ends a turn on an error notice (failed) or a cancelled request (interrupted)', () => {
    const error = read([
      header(),
      user('u1', 1, 'go'),
      j({ id: 'e1', timestamp: at(2), type: 'error', content: '429 RESOURCE_EXHAUSTED' }),
    ]);
    expect(turns(error.log)).toEqual({ counted: ['failed@1-2'], open: false });
    const cancelled = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, { content: '', toolCalls: [call('c1', 'glob')] }),
      j({ id: 'i1', timestamp: at(3), type: 'info', content: 'Request cancelled.' }),
    ]);
    expect(turns(cancelled.log)).toEqual({ counted: ['interrupted@1-3'], open: false });
    // A notice between turns ends nothing.
    const idle = read([header(), j({ id: 'e1', timestamp: at(2), type: 'error', content: 'x' })]);
    expect(turnEvents(idle.log)).toEqual([]);
  });

  it('tells typed prompts from context the CLI adds, slash commands and tool responses, and counts each once', () => {
    const r = read([
      header(),
      user('ctx', 0, '<session_context>\nThis is the Gemini CLI.'),
      user('c', 1, '/stats'),
      user('h', 1, '<hook_context>x'),
      toolResponse('t', 1, 'c1'),
      user('u1', 2, 'go'),
      user('u1', 2, 'go'),
      j({ id: 'u2', timestamp: at(3), type: 'user', content: 'a string' }),
    ]);
    expect(eventsNamed(r.log, 'prompt')).toEqual([
      ['prompt', t0 + 2000],
      ['prompt', t0 + 3000],
    ]);
  });

  it('names tools by kind, MCP tools by server, and tells failed calls', () => {
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, {
        toolCalls: [
          call('a', 'run_shell_command', {
            result: [{ functionResponse: { response: { output: 'Output: \nExit Code: 2\nProcess Group PGID: 1' } } }],
          }),
          call('b', 'read_file', { status: 'error' }),
          call('c', 'google_web_search', { result: [{ functionResponse: { response: { error: 'quota' } } }] }),
          call('d', 'mcp_github_create_issue'),
          call('e', 'linear__list'),
          call('f', 'codebase_investigator'),
          call('g', 'write_todos', { status: 'cancelled' }),
          call('h', 'ask_user'),
        ],
      }),
    ]);
    expect(eventsNamed(r.log, 'toolCall').map(([, , c]) => c)).toEqual([
      { tool: 'run_shell_command', kind: 'execute' },
      { tool: 'read_file', kind: 'read' },
      { tool: 'google_web_search', kind: 'search' },
      { tool: 'mcp:github', kind: 'other' },
      { tool: 'mcp:linear', kind: 'other' },
      { tool: 'other', kind: 'other' },
      { tool: 'write_todos', kind: 'plan' },
      { tool: 'ask_user', kind: 'communicate' },
    ]);
    expect(
      eventsNamed(r.log, 'toolResult')
        .filter(([, , failed]) => failed)
        .map(([, id]) => id),
    ).toEqual(['a', 'b', 'c']);
  });

  it('counts lines changed by the model in edits and new files, not in failed ones', () => {
    const diffStat = { model_added_lines: 3, model_removed_lines: 1, user_added_lines: 5, user_removed_lines: 5 };
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2, {
        toolCalls: [
          call('a', 'replace', { resultDisplay: { fileDiff: '…', diffStat } }),
          call('b', 'write_file', { resultDisplay: { fileDiff: '--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n+y\n+z\n' } }),
          call('c', 'write_file', { resultDisplay: { isNewFile: true, newContent: 'a\nb\n' } }),
          call('d', 'replace', { status: 'error', resultDisplay: { diffStat } }),
        ],
      }),
    ]);
    expect(eventsNamed(r.log, 'lines')).toEqual([
      ['lines', 3, 1],
      ['lines', 2, 1],
      ['lines', 2, 0],
    ]);
  });

  it("folds a subagent's tokens and tools into its parent, but not its prompts, turns or context", () => {
    const r = read(
      [
        header('sub-1', 'subagent'),
        user('s1', 1, 'Investigate the code'),
        gemini('g1', 2, { toolCalls: [call('c1', 'glob')] }),
        gemini('g2', 3),
      ],
      subagent,
    );
    expect(geminiCli.sessionOf!(subagent, r.state)).toBe('5da0c0d6-full-parent-id');
    expect(sum(r.log).input).toBe(1200);
    expect(eventsNamed(r.log, 'toolCall')).toHaveLength(1);
    expect(turnEvents(r.log)).toEqual([]);
    expect(eventsNamed(r.log, 'context')).toEqual([]);
  });

  it("names a main file's session by the id its header gives (the file name has its first 8 characters)", () => {
    const r = read([header('5da0c0d6-ad8a-42cd-969c-34c4a9293815')]);
    expect(geminiCli.sessionOf!(file, geminiCli.initialState(file))).toBe('5da0c0d6');
    expect(geminiCli.sessionOf!(file, r.state)).toBe('5da0c0d6-ad8a-42cd-969c-34c4a9293815');
  });

  it("finds the project's real path from .project_root, else from projects.json by the project hash", () => {
    const root = join(tempDir(), '.gemini');
    const marked = join(root, 'tmp', 'app', 'chats');
    const hashed = join(root, 'tmp', createHash('sha256').update('/src/old').digest('hex'), 'chats');
    mkdirSync(marked, { recursive: true });
    mkdirSync(hashed, { recursive: true });
    writeFileSync(join(root, 'tmp', 'app', '.project_root'), '/src/app\n');
    writeFileSync(join(root, 'projects.json'), j({ projects: { '/src/app': 'app', '/src/old': 'old' } }));
    const hashOf = (p: string) => createHash('sha256').update(p).digest('hex');
    for (const [dir, cwd] of [
      [marked, '/src/app'],
      [hashed, '/src/old'],
    ] as const) {
      const f = { path: join(dir, 'session-2026-11-30T10-00-aaaaaaaa.jsonl'), sessionId: 'aaaaaaaa' };
      const r = read([j({ sessionId: 'aaaaaaaa-1', projectHash: hashOf(cwd), startTime: at(0) })], f);
      expect(r.log).toContainEqual(['meta', { cwd }]);
    }
  });

  it('lists main sessions (JSONL and legacy JSON documents) and subagent sessions, nothing else', () => {
    const root = join(tempDir(), '.gemini');
    const chats = join(root, 'tmp', 'app', 'chats');
    mkdirSync(join(chats, 'parent-id'), { recursive: true });
    for (const name of [
      'session-2026-11-30T10-00-aaaaaaaa.jsonl',
      'session-2025-10-01T10-00-bbbbbbbb.json',
      'session-2026-11-30T10-00-aaaaaaaa.jsonl.unreadable-1',
      'checkpoint-x.json',
    ])
      writeFileSync(join(chats, name), '');
    writeFileSync(join(chats, 'parent-id', 'sub-1.jsonl'), '');
    writeFileSync(join(root, 'tmp', 'app', 'logs.json'), '[]');
    const files = geminiCli.listFiles(root).sort((a, b) => a.path.localeCompare(b.path));
    expect(files).toEqual([
      { path: join(chats, 'parent-id', 'sub-1.jsonl'), sessionId: 'parent-id' },
      { path: join(chats, 'session-2025-10-01T10-00-bbbbbbbb.json'), sessionId: 'bbbbbbbb', document: true },
      { path: join(chats, 'session-2026-11-30T10-00-aaaaaaaa.jsonl'), sessionId: 'aaaaaaaa' },
    ]);
    expect(geminiCli.defaultRoots({ GEMINI_CLI_HOME: '/g' }, '/home/u')).toEqual(['/g/.gemini']);
    expect(geminiCli.defaultRoots({}, '/home/u')).toEqual(['/home/u/.gemini']);
  });

  it('counts nothing again, and takes nothing back, at a rewind', () => {
    const r = read([
      header(),
      user('u1', 1, 'go'),
      gemini('g1', 2),
      j({ $rewindTo: 'u1' }),
      user('u2', 3, 'again'),
      gemini('g2', 4),
    ]);
    expect(sum(r.log).input).toBe(1200);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(2);
  });

  it('skips records it cannot use, with a reason', () => {
    const r = read([
      '{"id":"x","type":"gemini"',
      j({ id: 'x', type: 'gemini' }),
      j({ id: 'y', timestamp: at(1), type: 'model' }),
      j({ projectHash: 'ab' }),
      j({ $set: { messages: 7 } }),
      gemini('g1', 2, { toolCalls: [{ id: 'c' }] }),
    ]);
    expect(eventsNamed(r.log, 'skipped').map(([, why]) => why)).toEqual([
      'parse_error',
      'unknown_shape',
      'unknown_shape',
      'unknown_shape',
      'unknown_shape',
    ]);
  });
});

describe('Gemini CLI legacy JSON documents', () => {
  const doc: SessionFile = {
    path: '/h/.gemini/tmp/app/chats/session-2025-10-01T10-00-3739ef95.json',
    sessionId: '3739ef95',
    document: true,
  };
  const session = (messages: object[], lastUpdated = at(9)) =>
    Buffer.from(
      JSON.stringify(
        { sessionId: '3739ef95-full', projectHash: 'ab', startTime: at(0), lastUpdated, messages },
        null,
        2,
      ),
    );
  const m = (s: string) => JSON.parse(s) as object;

  it('reads the whole document again on every rewrite, counting only what is new', () => {
    const r = recorder();
    const state = geminiCli.initialState(doc);
    const first = [m(user('u1', 1, 'go')), m(gemini('g1', 2, { content: 'I will look.' }))];
    geminiCli.readDocument!(session(first), state, doc, r.events);
    expect(turns(r.log)).toEqual({ counted: ['completed@1-2'], open: false });
    // Rewritten: the last answer got its tool calls, then the tool response and a new answer came.
    const second = [
      m(user('u1', 1, 'go')),
      m(gemini('g1', 2, { content: 'I will look.', toolCalls: [call('c1', 'glob')] })),
      m(toolResponse('u2', 3, 'c1')),
      m(gemini('g2', 4, { content: 'Found it.' })),
    ];
    const restored = JSON.parse(JSON.stringify(state)) as GeminiState; // persisted between reads
    geminiCli.readDocument!(session(second), restored, doc, r.events);
    geminiCli.readDocument!(session(second), restored, doc, r.events); // same content, read again
    expect(sum(r.log)).toEqual({ input: 1200, output: 120, cacheRead: 800, cacheWrite: 0, reasoning: 20 });
    expect(eventsNamed(r.log, 'toolCall')).toHaveLength(1);
    expect(turns(r.log)).toEqual({ counted: ['completed@1-2'], open: false });
    expect(storeTurns(r.log).last).toMatchObject({ outcome: 'completed', endedAt: t0 + 4000 });
    expect(geminiCli.sessionOf!(doc, restored)).toBe('3739ef95-full');
  });

  it('fails a turn whose prompt the document drops again, and skips what is not a session', () => {
    const r = recorder();
    const state = geminiCli.initialState(doc);
    geminiCli.readDocument!(session([m(user('u1', 1, 'go'))]), state, doc, r.events);
    geminiCli.readDocument!(session([], at(5)), state, doc, r.events);
    expect(turns(r.log)).toEqual({ counted: ['failed@1-5'], open: false });
    geminiCli.readDocument!(Buffer.from('{"sessionId": "x", "mess'), state, doc, r.events);
    geminiCli.readDocument!(Buffer.from('{"sessionId": "x"}'), state, doc, r.events);
    expect(eventsNamed(r.log, 'skipped').map(([, why]) => why)).toEqual(['parse_error', 'unknown_shape']);
  });
});
