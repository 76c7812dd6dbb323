import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { droid } from '../../src/readers/droid/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { Usage } from '../../src/session/types.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { envFor, FIXTURES, run, sum, tempDir } from '../helpers/run.js';

const transcript: SessionFile = { path: '/h/.factory/sessions/-src-app/s1.jsonl', sessionId: 's1' };
const settingsOf = (id: string): SessionFile => ({
  path: `/h/.factory/sessions/-src-app/${id}.settings.json`,
  sessionId: id,
  document: true,
});
const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const at = (ms: number) => new Date(t0 + ms).toISOString();

const start = JSON.stringify({
  type: 'session_start',
  id: 's1',
  title: 'x',
  owner: 'dev',
  version: 2,
  cwd: '/src/app',
});
const message = (ms: number, id: string, m: object) =>
  JSON.stringify({ type: 'message', id, timestamp: at(ms), message: m });
const context = (ms: number, prompt: string) =>
  message(ms, `context-${prompt}`, {
    role: 'user',
    visibility: 'llm_only',
    content: [{ type: 'text', text: '<system-reminder>' }],
  });
const prompt = (ms: number, id: string) =>
  message(ms, id, { role: 'user', content: [{ type: 'text', text: 'hi' }], interactionMode: 'auto' });
const notice = (ms: number) =>
  message(ms, `n${ms}`, {
    role: 'user',
    visibility: 'user_only',
    content: [{ type: 'text', text: 'BYOK Error: 500' }],
  });
const answer = (ms: number, blocks: object[]) =>
  message(ms, `a${ms}`, { role: 'assistant', content: blocks, modelId: 'custom:m-0' });
const result = (ms: number, callId: string, isError: boolean) =>
  message(ms, `r${ms}`, {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: callId, is_error: isError, content: 'x' }],
  });
const outcome = (turnId: string, reason: string) =>
  JSON.stringify({ type: 'agent_turn_outcome', turnId, reason, resultKind: 'text' });

const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0, thinking = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheCreationTokens: cacheWrite,
  cacheReadTokens: cacheRead,
  thinkingTokens: thinking,
  factoryCredits: 0,
});
const settings = (own: object, children: Record<string, object> = {}, last?: object) =>
  Buffer.from(
    JSON.stringify(
      {
        model: 'custom:m-0',
        providerLock: 'anthropic',
        tokenUsage: own,
        childInclusiveTokenUsageBySessionId: children,
        inclusiveTokenUsage: own,
        ...(last ? { lastCallTokenUsage: last } : {}),
      },
      null,
      2,
    ),
  );

function readLines(lines: string[], r = recorder()) {
  const state = droid.initialState(transcript);
  for (const l of lines) droid.readLine(Buffer.from(l), state, transcript, r.events);
  return r;
}
const usages = (log: unknown[][]) => eventsNamed(log, 'usage').map(([, , u]) => u as Usage);
const outcomes = countedTurns;

describe('Droid transcripts', () => {
  it("count the person's prompts only: not the context reminders, not the notices only the person sees", () => {
    const r = readLines([
      start,
      context(0, 'p1'),
      prompt(1, 'p1'),
      notice(2),
      outcome('p1', 'model_provider_unavailable'),
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'turnStarted')).toHaveLength(1);
    expect(outcomes(r.log)).toEqual(['failed']);
    // The outcome has no time of its own: the turn ends at the last timed record.
    expect(eventsNamed(r.log, 'turnEnded')[0]![2]).toBe(t0 + 2);
  });

  it('map every turn outcome reason', () => {
    const reasons = [
      'completed',
      'model_request_rejected',
      'model_provider_unavailable',
      'error',
      'cancelled',
      'process_exit',
      'permission_rejected',
    ];
    const r = readLines(reasons.flatMap((reason, i) => [prompt(i * 10, `p${i}`), outcome(`p${i}`, reason)]));
    expect(outcomes(r.log)).toEqual([
      'completed',
      'failed',
      'failed',
      'failed',
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
  });

  it('end a turn with an unknown reason, counting the record as skipped', () => {
    const r = readLines([prompt(0, 'p1'), outcome('p1', 'something_new')]);
    expect(outcomes(r.log)).toEqual(['completed']);
    expect(eventsNamed(r.log, 'skipped')).toEqual([['skipped', 'unknown_shape']]);
  });

  it('end a turn left open by a process that died as interrupted when the session is resumed', () => {
    const r = readLines([
      prompt(0, 'p1'),
      answer(1, [{ type: 'text', text: 'x' }]),
      context(5, 'p2'),
      prompt(6, 'p2'),
      outcome('p2', 'completed'),
    ]);
    expect(outcomes(r.log)).toEqual(['interrupted', 'completed']);
  });

  it('end no turn with an outcome no prompt of the file started', () => {
    const r = readLines([
      outcome('p0', 'completed'),
      prompt(1, 'p1'),
      outcome('p1', 'cancelled'),
      outcome('p1', 'completed'),
    ]);
    expect(outcomes(r.log)).toEqual(['interrupted']);
  });

  it('read each result of a message with several, with its own error flag, once (a fork copies them)', () => {
    const results = message(5, 'r5', {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', is_error: false, content: 'has "is_error":true in it' },
        { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'no flag' }] },
        { type: 'tool_result', tool_use_id: 'c3', is_error: true, content: 'x' },
      ],
    });
    const r = readLines([prompt(0, 'p1'), results, results]);
    expect(eventsNamed(r.log, 'toolResult')).toEqual([
      ['toolResult', 'c1', false],
      ['toolResult', 'c2', false],
      ['toolResult', 'c3', true],
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
  });

  it('report tool calls by label and their results, failed ones as errors', () => {
    const r = readLines([
      prompt(0, 'p1'),
      answer(1, [
        { type: 'text', text: 'x' },
        { type: 'tool_use', id: 'c1', name: 'Execute', input: {} },
        { type: 'tool_use', id: 'c2', name: 'Frobnicate', input: {} },
      ]),
      result(2, 'c1', true),
      result(3, 'c2', false),
    ]);
    expect(eventsNamed(r.log, 'toolCall')).toEqual([
      ['toolCall', 'c1', { tool: 'Execute', kind: 'execute' }],
      ['toolCall', 'c2', { tool: 'other', kind: 'other' }],
    ]);
    expect(eventsNamed(r.log, 'toolResult')).toEqual([
      ['toolResult', 'c1', true],
      ['toolResult', 'c2', false],
    ]);
    expect(eventsNamed(r.log, 'meta')).toContainEqual(['meta', { model: 'custom:m-0' }]);
  });
});

describe('Droid settings documents', () => {
  it('count the growth of the cumulative token usage, once, when the session is resumed', () => {
    const r = recorder();
    const f = settingsOf('s1');
    const state = droid.initialState(f);
    droid.readDocument!(
      settings(tokens(445, 56, 789, 100, 7), {}, { inputTokens: 445, outputTokens: 56, cacheReadTokens: 789 }),
      state,
      f,
      r.events,
    );
    droid.readDocument!(settings(tokens(445, 56, 789, 100, 7)), state, f, r.events); // rewritten, unchanged totals
    droid.readDocument!(
      settings(tokens(845, 116, 1689, 100, 7), {}, { inputTokens: 400, outputTokens: 60, cacheReadTokens: 900 }),
      state,
      f,
      r.events,
    );
    expect(usages(r.log)).toEqual([
      { input: 445, output: 56, cacheRead: 789, cacheWrite: 100, cacheWrite1h: 0, reasoning: 7 },
      { input: 400, output: 60, cacheRead: 900, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    ]);
    // The last call's prompt selects price tiers and is the context in use.
    expect(eventsNamed(r.log, 'usage').map((e) => e[3])).toEqual([445 + 789, 400 + 900]);
    expect(eventsNamed(r.log, 'context').at(-1)).toEqual(['context', 'custom:m-0', 1300]);
  });

  it('never count a total that went down (a rewrite from an older copy)', () => {
    const r = recorder();
    const f = settingsOf('s1');
    const state = droid.initialState(f);
    for (const u of [tokens(500, 50), tokens(400, 40), tokens(600, 60)])
      droid.readDocument!(settings(u), state, f, r.events);
    expect(usages(r.log).map((u) => [u.input, u.output])).toEqual([
      [500, 50],
      [100, 10],
    ]);
  });

  it('skip a total that is no count (counted as implausible), and go on counting from the last good one', () => {
    const r = recorder();
    const f = settingsOf('s1');
    const state = droid.initialState(f);
    for (const u of [tokens(500, 50), tokens(1e308, 60), tokens(2 ** 40, 60), tokens(600, 60)])
      droid.readDocument!(settings(u), state, f, r.events);
    expect(usages(r.log).map((u) => [u.input, u.output])).toEqual([
      [500, 50],
      [100, 10],
    ]);
    expect(eventsNamed(r.log, 'skipped')).toEqual([
      ['skipped', 'implausible_value'],
      ['skipped', 'implausible_value'],
    ]);
  });

  it("count a subagent's tokens once: for the parent when its document is read first", () => {
    const r = recorder(); // one collector: one record of keys seen
    const parent = settingsOf('parent');
    const child = settingsOf('child');
    const ps = droid.initialState(parent);
    const cs = droid.initialState(child);
    droid.readDocument!(settings(tokens(100, 10), { child: tokens(30, 3) }), ps, parent, r.events);
    droid.readDocument!(settings(tokens(30, 3)), cs, child, r.events);
    droid.readDocument!(settings(tokens(100, 10), { child: tokens(50, 5) }), ps, parent, r.events);
    droid.readDocument!(settings(tokens(50, 5)), cs, child, r.events);
    expect(usages(r.log).map((u) => [u.input, u.output])).toEqual([
      [130, 13],
      [20, 2],
    ]);
  });

  it("count a subagent's tokens for its caller, whichever document is read first: its transcript names the caller", () => {
    for (const childFirst of [true, false]) {
      const seen = new Set<string>(); // one collector: one record of keys seen
      const [forParent, forChild] = [recorder(seen), recorder(seen)];
      const childTranscript: SessionFile = { path: '/h/.factory/sessions/-src-app/child.jsonl', sessionId: 'child' };
      const header = {
        type: 'session_start',
        id: 'child',
        title: 'x',
        owner: 'dev',
        version: 2,
        cwd: '/src/app',
        callingSessionId: 'parent',
        callingToolUseId: 'call-1',
      };
      droid.readLine(
        Buffer.from(JSON.stringify(header)),
        droid.initialState(childTranscript),
        childTranscript,
        forChild.events,
      );
      const [parent, child] = [settingsOf('parent'), settingsOf('child')];
      const [ps, cs] = [droid.initialState(parent), droid.initialState(child)];
      // The subagent's own subagent rolls up into its entry in the caller's settings.
      const readChild = () =>
        droid.readDocument!(settings(tokens(30, 3), { grandchild: tokens(7, 1) }), cs, child, forChild.events);
      if (childFirst) readChild();
      droid.readDocument!(settings(tokens(100, 10), { child: tokens(37, 4) }), ps, parent, forParent.events);
      if (!childFirst) readChild();
      expect(usages(forParent.log).map((u) => [u.input, u.output])).toEqual([[137, 14]]);
      expect(usages(forChild.log)).toEqual([]);
    }
  });

  it("count a subagent's tokens once: for the subagent's own session when its document is read first and no transcript named its caller", () => {
    const r = recorder();
    const parent = settingsOf('parent');
    const child = settingsOf('child');
    const ps = droid.initialState(parent);
    const cs = droid.initialState(child);
    droid.readDocument!(settings(tokens(30, 3)), cs, child, r.events);
    droid.readDocument!(settings(tokens(100, 10), { child: tokens(30, 3) }), ps, parent, r.events);
    expect(usages(r.log).map((u) => [u.input, u.output])).toEqual([
      [30, 3],
      [100, 10],
    ]);
  });

  it('count nothing before the first request, and skip a document that is not JSON', () => {
    const r = recorder();
    const f = settingsOf('s1');
    droid.readDocument!(Buffer.from(JSON.stringify({ model: 'custom:m-0' })), droid.initialState(f), f, r.events);
    droid.readDocument!(Buffer.from('{"tokenUsage": {'), droid.initialState(f), f, r.events);
    expect(eventsNamed(r.log, 'usage')).toEqual([]);
    expect(eventsNamed(r.log, 'skipped')).toEqual([['skipped', 'parse_error']]);
  });
});

describe('Droid files', () => {
  function home(): string {
    const h = tempDir();
    cpSync(join(FIXTURES, 'captures/droid/tool/.factory'), join(h, '.factory'), { recursive: true });
    return h;
  }

  it("are the transcripts and settings of each session under ~/.factory/sessions, never the user's settings or backups", () => {
    const h = home();
    const slug = join(h, '.factory/sessions/-home-dev-src-demo-app');
    writeFileSync(join(h, '.factory/settings.json'), '{"customModels":[{"apiKey":"secret"}]}');
    writeFileSync(join(h, '.factory/sessions/settings.json'), '{}');
    writeFileSync(join(slug, 'settings.json'), '{}');
    writeFileSync(join(slug, '33c23b66-0db7-4c82-a302-1dfcfa39267a.settings.json.bak'), '{}');
    const roots = droid.defaultRoots({}, h);
    expect(roots).toEqual([join(h, '.factory/sessions')]);
    const files = roots
      .flatMap((root) => droid.listFiles(root))
      .map((f) => [f.path.slice(slug.length + 1), f.sessionId, f.document ?? false]);
    expect(files).toEqual([
      ['33c23b66-0db7-4c82-a302-1dfcfa39267a.jsonl', '33c23b66-0db7-4c82-a302-1dfcfa39267a', false],
      ['33c23b66-0db7-4c82-a302-1dfcfa39267a.settings.json', '33c23b66-0db7-4c82-a302-1dfcfa39267a', true],
    ]);
  });

  it('are read by the binary without ever opening ~/.factory/settings.json', () => {
    const h = home();
    // A FIFO blocks whoever opens it for reading (no writer ever comes): opening it would hang
    // the run until it is killed, instead of exiting cleanly.
    expect(spawnSync('mkfifo', [join(h, '.factory/settings.json')]).status).toBe(0);
    const r = run(['once', '--state-dir', tempDir()], envFor(h));
    expect(r.status).toBe(0);
    expect(sum(r.stdout, 'coding_agent_tokens_total', { harness: 'droid', token_type: 'input' })).toBe(845);
  });

  it('count only what a resume added, across runs of the binary', () => {
    const h = home();
    const state = tempDir();
    const dir = join(h, '.factory/sessions/-home-dev-src-demo-app');
    const id = '33c23b66-0db7-4c82-a302-1dfcfa39267a';
    expect(run(['once', '--state-dir', state], envFor(h)).status).toBe(0);
    // `droid exec -s <id>`: a new prompt appended, the totals rewritten with the new request added.
    writeFileSync(
      join(dir, `${id}.jsonl`),
      [
        context(1e9, 'p2'),
        prompt(1e9 + 1, 'p2'),
        answer(1e9 + 2, [{ type: 'text', text: 'x' }]),
        outcome('p2', 'completed'),
        '',
      ].join('\n'),
      { flag: 'a' },
    );
    const doc = JSON.parse(readFileSync(join(dir, `${id}.settings.json`), 'utf8')) as {
      tokenUsage: ReturnType<typeof tokens>;
    };
    doc.tokenUsage = tokens(845 + 300, 116 + 20, 1689 + 1000);
    writeFileSync(join(dir, `${id}.settings.json`), JSON.stringify(doc, null, 2));
    const r = run(['once', '--state-dir', state], envFor(h));
    expect(r.status).toBe(0);
    const t = (type: string) => sum(r.stdout, 'coding_agent_tokens_total', { harness: 'droid', token_type: type });
    expect([t('input'), t('output'), t('cache_read')]).toEqual([1145, 136, 2689]);
    expect(sum(r.stdout, 'coding_agent_prompts_total', { harness: 'droid' })).toBe(2);
    expect(sum(r.stdout, 'coding_agent_turns_total', { harness: 'droid', outcome: 'completed' })).toBe(2);
  });
});
