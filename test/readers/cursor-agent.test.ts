import { Database } from '../helpers/sqlite.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursorAgent } from '../../src/readers/cursor-agent/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { countedTurns, recorder, type Recorded } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const CHAT = 'f06afc64-a410-4583-8d89-0864ccc73862';

/** A `~/.cursor` with one chat: its transcript, meta.json and store.db. */
function setup(model = 'claude-4.5-sonnet') {
  const root = tempDir();
  const transcripts = join(root, 'projects', 'home-dev-src-demo-app', 'agent-transcripts', CHAT);
  mkdirSync(join(transcripts, 'subagents'), { recursive: true });
  const chat = join(root, 'chats', 'a6452f3e5d4285097e4f46e0bc038e87', CHAT);
  mkdirSync(chat, { recursive: true });
  writeFileSync(
    join(chat, 'meta.json'),
    JSON.stringify({
      schemaVersion: 1,
      createdAtMs: 1796038860000,
      updatedAtMs: 1796038900000,
      cwd: '/home/dev/src/demo-app',
    }),
  );
  const db = new Database(join(chat, 'store.db'));
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);');
  const meta = {
    agentId: CHAT,
    latestRootBlobId: 'x',
    name: 'chat',
    mode: 'agent',
    createdAt: 1796038860000,
    lastUsedModel: model,
    blobEncryptionKey: 'c2VjcmV0',
  };
  db.prepare("INSERT INTO meta VALUES ('0', ?)").run(Buffer.from(JSON.stringify(meta)).toString('hex'));
  db.close();
  return { root, main: join(transcripts, `${CHAT}.jsonl`), sub: join(transcripts, 'subagents', 'child.jsonl') };
}

const user = (text: string) => JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text }] } });
const query = (stamp: string, q: string) => user(`<timestamp>${stamp}</timestamp>\n<user_query>\n${q}\n</user_query>`);
const answer = (...blocks: object[]) => JSON.stringify({ role: 'assistant', message: { content: blocks } });
const text = (t: string) => ({ type: 'text', text: t });
const use = (id: string, name: string) => ({ type: 'tool_use', id, name, input: {} });
const result = (id: string) =>
  JSON.stringify({ role: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });

function read(file: SessionFile, lines: string[]) {
  const r = recorder();
  const state = cursorAgent.initialState(file);
  for (const l of lines) cursorAgent.readLine(Buffer.from(l), state, file, r.events);
  return r.log;
}
const of = (log: Recorded[], name: string) => log.filter(([e]) => e === name);

describe('cursor-agent reader', () => {
  it('finds transcripts and their subagents, which belong to the chat', () => {
    const t = setup();
    writeFileSync(t.main, '');
    writeFileSync(t.sub, '');
    expect(
      cursorAgent
        .listFiles(t.root)
        .map((f) => [f.path, f.sessionId])
        .sort(),
    ).toEqual(
      [
        [t.main, CHAT],
        [t.sub, CHAT],
      ].sort(),
    );
  });

  it('reports prompts, tool calls and turns at the prompt time, with the cwd and the model of the chat meta', () => {
    const t = setup();
    const file = { path: t.main, sessionId: CHAT };
    const log = read(file, [
      query('2026-11-30 11:41', 'Check the lint errors'),
      answer(text('Let me look.'), use('toolu_1', 'Read')),
      result('toolu_1'),
      answer(text('Fixed.')),
      query('2026-11-30 11:50', 'And the tests'),
      answer(use('toolu_2', 'Shell')),
    ]);
    const at = (s: string) => Date.parse(s);
    expect(of(log, 'meta')).toContainEqual(['meta', { cwd: '/home/dev/src/demo-app', model: 'claude-4.5-sonnet' }]);
    expect(of(log, 'prompt')).toEqual([
      ['prompt', at('2026-11-30T11:41')],
      ['prompt', at('2026-11-30T11:50')],
    ]);
    expect(of(log, 'toolCall')).toEqual([
      ['toolCall', 'toolu_1', { tool: 'Read', kind: 'read' }],
      ['toolCall', 'toolu_2', { tool: 'Shell', kind: 'execute' }],
    ]);
    expect(of(log, 'toolResult')).toEqual([['toolResult', 'toolu_1', false]]);
    expect(of(log, 'turnEnded')).toEqual([['turnEnded', 'completed', at('2026-11-30T11:41')]]);
    // no tokens, no cost, no context: Cursor keeps none on disk
    expect(log.filter(([e]) => ['usage', 'context', 'premiumRequests'].includes(e))).toEqual([]);
    // the store's encryption key goes nowhere
    expect(JSON.stringify(log)).not.toContain('c2VjcmV0');
  });

  it('declares every token type unrecorded', () => {
    expect([...cursorAgent.unrecorded!].sort()).toEqual(['cache_read', 'cache_write', 'input', 'output']);
  });

  it('ends a turn its next prompt cut short as interrupted', () => {
    const t = setup();
    const log = read({ path: t.main, sessionId: CHAT }, [
      query('2026-11-30 11:41', 'a'),
      answer(use('toolu_1', 'Read')),
      query('2026-11-30 11:42', 'b'),
    ]);
    expect(of(log, 'turnStarted').at(-1)).toEqual(['turnStarted', Date.parse('2026-11-30T11:42'), 'interrupted']);
    expect(countedTurns(log)).toEqual(['interrupted']);
  });

  it('counts a turn once when more answers without tool calls follow its end', () => {
    const t = setup();
    const log = read({ path: t.main, sessionId: CHAT }, [
      query('2026-11-30 11:41', 'a'),
      answer(text('Done.')),
      answer(text('Also this.')),
      query('2026-11-30 11:42', 'b'),
    ]);
    expect(countedTurns(log)).toEqual(['completed']);
  });

  it('delegates while the subagent call is open; the subagent task is no prompt, its calls count for the chat', () => {
    const t = setup('auto');
    const main = read({ path: t.main, sessionId: CHAT }, [
      query('2026-11-30 11:55', 'Audit'),
      answer(use('toolu_s', 'Subagent')),
    ]);
    expect(of(main, 'toolCall')).toEqual([
      ['toolCall', 'toolu_s', { tool: 'Subagent', kind: 'agent', waits: 'subagents' }],
    ]);
    const sub = read({ path: t.sub, sessionId: CHAT }, [
      user('<user_query>\nFind flaky tests\n</user_query>'),
      answer(use('toolu_g', 'Grep')),
      answer(text('Found 2.')),
    ]);
    expect(sub.filter(([e]) => e === 'prompt' || e.startsWith('turn'))).toEqual([]);
    expect(of(sub, 'toolCall')).toEqual([['toolCall', 'toolu_g', { tool: 'Grep', kind: 'search' }]]);
    expect(of(sub, 'meta')).toContainEqual(['meta', { cwd: '/home/dev/src/demo-app', model: 'auto' }]);
  });

  it('skips lines that are not JSON or not of the known shape', () => {
    const t = setup();
    const log = read({ path: t.main, sessionId: CHAT }, [
      '{"role":"user"',
      '{"type":"turn_ended"}',
      '{"role":"assistant","message":{}}',
    ]);
    expect(log.map(([e, r]) => [e, r])).toEqual([
      ['skipped', 'parse_error'],
      ['skipped', 'unknown_shape'],
      ['skipped', 'unknown_shape'],
    ]);
  });
});
