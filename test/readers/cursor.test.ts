// Cursor's editor: its global state.vscdb written as Cursor writes it (rows rewritten in place,
// a writer holding the database in WAL mode), read as it changes.

import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursor } from '../../src/readers/cursor/reader.js';
import { readCursor, type CursorState } from '../../src/readers/cursor/composers.js';
import { uriPath, Workspaces } from '../../src/readers/cursor/workspaces.js';
import { cursorAgent } from '../../src/readers/cursor-agent/reader.js';
import { readDatabase, type Db } from '../../src/readers/sqlite.js';
import type { Statement } from '../../src/files/sqlite.js';
import { Database } from '../helpers/sqlite.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';
import { denseJson } from '../helpers/json.js';

const T0 = Date.parse('2026-12-07T10:00:00Z');
const KV = 'CREATE TABLE IF NOT EXISTS %s (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)';

/** A Cursor user dir under a new home, its global database held open by a writer in WAL mode. */
function editor(home = tempDir()) {
  const userDir = join(home, '.config', 'Cursor');
  const path = join(userDir, 'User', 'globalStorage', 'state.vscdb');
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const t of ['ItemTable', 'cursorDiskKV']) db.exec(KV.replace('%s', t));
  const put = (key: string, value: unknown) =>
    db
      .prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)')
      .run(key, typeof value === 'string' || value instanceof Uint8Array ? value : JSON.stringify(value));
  return {
    home,
    userDir,
    path,
    db,
    put,
    del: (key: string) => db.prepare('DELETE FROM cursorDiskKV WHERE key = ?').run(key),
    /**
     * A chat: its bubbles (those of `written`: all where not given) written first, as Cursor
     * streams them, then its composer row listing them all.
     */
    chat(id: string, bubbles: Record<string, unknown>[], data: Record<string, unknown> = {}, written = bubbles) {
      for (const b of written) put(`bubbleId:${id}:${b.bubbleId as string}`, { _v: 3, ...b });
      put(`composerData:${id}`, {
        _v: 10,
        composerId: id,
        createdAt: T0,
        lastUpdatedAt: T0 + 60_000,
        status: 'completed',
        generatingBubbleIds: [],
        fullConversationHeadersOnly: bubbles.map((b) => ({ bubbleId: b.bubbleId, type: b.type })),
        modelConfig: { modelName: 'claude-4.5-sonnet' },
        workspaceIdentifier: { id: 'ws1', uri: { fsPath: '/home/dev/src/app' } },
        ...data,
      });
    },
  };
}

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const prompt = (id: string, s: number) => ({
  bubbleId: id,
  type: 1,
  text: 'do it',
  createdAt: at(s),
  tokenCount: { inputTokens: 0, outputTokens: 0 },
});
const answer = (id: string, s: number, extra: Record<string, unknown> = {}) => ({
  bubbleId: id,
  type: 2,
  text: 'done',
  createdAt: at(s),
  modelInfo: { modelName: 'gpt-5.2' },
  tokenCount: { inputTokens: 0, outputTokens: 0 },
  ...extra,
});
const tool = (id: string, s: number, status: string, extra: Record<string, unknown> = {}) => ({
  bubbleId: id,
  type: 2,
  capabilityType: 15,
  text: '',
  createdAt: at(s),
  toolFormerData: {
    toolCallId: `call-${id}`,
    name: 'run_terminal_command_v2',
    status,
    params: '{"command":"npm test"}',
    ...extra,
  },
});

/** Reads the store as the collector does (the state persisted between reads), with the bubble rows each read loaded. */
function reading(e: ReturnType<typeof editor>) {
  const rec = recorder();
  let state: CursorState = cursor.initialState({ path: e.path, sessionId: 'cursor' });
  const workspaces = new Workspaces(e.userDir);
  return {
    log: rec.log,
    read(): string[] {
      const loaded: string[] = [];
      state = JSON.parse(JSON.stringify(state)) as CursorState;
      readDatabase(e.path, (db) => readCursor(watched(db, loaded), state, () => rec.events, workspaces));
      return loaded.filter((k) => k.startsWith('bubbleId:')).sort();
    },
    counted: (name: string) => eventsNamed(rec.log, name),
    chats: () => Object.keys(state.composers).sort(),
  };
}

/** A connection that notes the key of every value it returns (a row's, or the one asked for by its key). */
function watched(db: Db, keys: string[]): Db {
  const note = (v: unknown) => {
    const row = v as { key?: unknown; value?: unknown } | undefined;
    if (typeof row?.key === 'string' && row.value !== undefined) keys.push(row.key);
  };
  const wrap = (s: Statement, sql: string): Statement => ({
    run: (...p) => s.run(...p),
    get: (...p) => {
      const r = s.get(...p);
      if (r !== undefined && sql.startsWith('SELECT value') && typeof p[0] === 'string') keys.push(p[0]);
      note(r);
      return r;
    },
    all: (...p) => s.all(...p).map((r) => (note(r), r)),
    *iterate(...p) {
      for (const r of s.iterate(...p)) {
        note(r);
        yield r;
      }
    },
    pluck: () => wrap(s.pluck(), sql),
  });
  return new Proxy(db, {
    get: (t, k) => (k === 'prepare' ? (sql: string) => wrap(t.prepare(sql), sql) : Reflect.get(t, k)),
  });
}

describe('cursor reader', () => {
  it('reads a chat as it grows: each prompt, turn, call and result counted once, across restarts', () => {
    const e = editor();
    e.chat('c1', [prompt('u1', 0), tool('t1', 5, 'loading', { additionalData: { status: 'pending' } })], {
      status: 'generating',
      generatingBubbleIds: ['t1'],
    });
    const r = reading(e);
    r.read();
    expect(r.counted('prompt')).toHaveLength(1);
    expect(r.counted('toolCall')).toEqual([
      ['toolCall', 'call-t1', { tool: 'run_terminal_command_v2', kind: 'execute' }],
    ]);
    expect(r.counted('toolWaits')).toEqual([['toolWaits', 'call-t1', 'approval']]);
    expect(r.counted('turnEnded')).toEqual([]);

    // Approved, run, answered: the tool row rewritten in place, one bubble more, the turn done.
    e.chat('c1', [prompt('u1', 0), tool('t1', 5, 'completed', { userDecision: 'accepted' }), answer('a1', 9)]);
    r.read();
    // A second prompt whose request fails.
    e.chat('c1', [
      prompt('u1', 0),
      tool('t1', 5, 'completed', { userDecision: 'accepted' }),
      answer('a1', 9),
      prompt('u2', 20),
      answer('a2', 25, { errorDetails: { title: 'Connection failed' } }),
    ]);
    r.read();
    r.read();
    expect(r.counted('prompt')).toEqual([
      ['prompt', T0],
      ['prompt', T0 + 20_000],
    ]);
    expect(r.counted('toolCall')).toHaveLength(1);
    expect(r.counted('toolResult')).toEqual([['toolResult', 'call-t1', false]]);
    expect(r.counted('turnEnded')).toEqual([
      ['turnEnded', 'completed', T0 + 9000],
      ['turnEnded', 'failed', T0 + 25_000],
    ]);
    expect(r.counted('meta').at(-1)).toEqual(['meta', { model: 'gpt-5.2' }]);
    expect(r.counted('usage')).toEqual([]);
  });

  it("loads only the bubbles that changed or were listed since the last read, and no other chat's", () => {
    const e = editor();
    e.chat('c1', [prompt('u1', 0), answer('a1', 5)]);
    e.chat('c2', [prompt('v1', 0), answer('b1', 5)]);
    const r = reading(e);
    expect(r.read()).toEqual(['bubbleId:c1:a1', 'bubbleId:c1:u1', 'bubbleId:c2:b1', 'bubbleId:c2:v1']);
    e.chat('c1', [prompt('u1', 0), answer('a1', 5), prompt('u2', 10), answer('a2', 15)], {}, [
      prompt('u2', 10),
      answer('a2', 15),
    ]);
    // The new bubbles alone: nothing of c2, nothing of c1's first turn, which had ended.
    expect(r.read()).toEqual(['bubbleId:c1:a2', 'bubbleId:c1:u2']);
    // A bubble listed before it was written is read once it is.
    e.chat(
      'c1',
      [prompt('u1', 0), answer('a1', 5), prompt('u2', 10), answer('a2', 15), prompt('u3', 20), answer('a3', 25)],
      { status: 'generating' },
      [prompt('u3', 20)],
    );
    expect(r.read()).toEqual(['bubbleId:c1:u3']);
    e.put('bubbleId:c1:a3', answer('a3', 25));
    expect(r.read()).toEqual(['bubbleId:c1:a3']);
    expect(r.read()).toEqual([]);
    expect(r.counted('prompt')).toHaveLength(4);
    expect(r.counted('turnEnded')).toHaveLength(3);
  });

  it('counts a bubble listed before it was written once it is, in an earlier turn too', () => {
    const e = editor();
    const bubbles = [prompt('u1', 0), tool('t1', 2, 'error'), answer('a1', 5), prompt('u2', 10), answer('a2', 15)];
    e.chat(
      'c1',
      bubbles,
      {},
      bubbles.filter((b) => b.bubbleId !== 't1'),
    );
    const r = reading(e);
    r.read();
    expect([r.counted('prompt').length, r.counted('toolCall').length]).toEqual([2, 0]);
    e.put('bubbleId:c1:t1', tool('t1', 2, 'error'));
    r.read();
    r.read();
    expect(r.counted('toolCall')).toHaveLength(1);
    expect(r.counted('toolResult')).toEqual([['toolResult', 'call-t1', true]]);
    expect(r.counted('turnEnded')).toHaveLength(2);
  });

  it('looks at every chat when rows at the top were deleted and their rowids taken again', () => {
    const e = editor();
    e.chat('c1', [prompt('u1', 0), answer('a1', 5)]);
    e.chat('gone', [prompt('g1', 0), answer('g2', 5)]);
    const r = reading(e);
    r.read();
    // The last chat deleted (its three rows were the highest), then three rows of c1 written: the
    // same rowids again, the highest one the same as at the last read.
    for (const k of ['composerData:gone', 'bubbleId:gone:g1', 'bubbleId:gone:g2']) e.del(k);
    e.put('bubbleId:c1:u2', prompt('u2', 10));
    e.put('bubbleId:c1:a2', answer('a2', 15));
    e.put('composerData:c1', {
      composerId: 'c1',
      createdAt: T0,
      lastUpdatedAt: T0 + 90_000,
      status: 'completed',
      generatingBubbleIds: [],
      fullConversationHeadersOnly: ['u1', 'a1', 'u2', 'a2'].map((id, i) => ({ bubbleId: id, type: i % 2 ? 2 : 1 })),
    });
    r.read();
    expect(r.counted('prompt')).toHaveLength(3);
    expect(r.counted('turnEnded')).toHaveLength(3);
    expect(r.chats()).toEqual(['c1']);
  });

  it("tells a subagent's chat from a person's: its goal is no prompt", () => {
    const e = editor();
    e.chat(
      'p1',
      [prompt('u1', 0), tool('t1', 2, 'completed', { name: 'task_v2', toolCallId: 'toolu_1' }), answer('a1', 9)],
      { subComposerIds: ['task-toolu_1'] },
    );
    e.chat('task-toolu_1', [prompt('g1', 3), answer('r1', 8)]);
    const r = reading(e);
    r.read();
    expect(r.counted('prompt')).toHaveLength(1);
    expect(r.counted('turnStarted')).toHaveLength(2);
    expect(r.counted('toolCall')).toEqual([
      ['toolCall', 'toolu_1', { tool: 'task_v2', kind: 'agent', waits: 'subagents' }],
    ]);
  });

  it('reports the context meter, never a token count, and skips a value that is no JSON once', () => {
    const e = editor();
    e.chat('c1', [prompt('u1', 0), answer('a1', 5, { tokenCount: { inputTokens: 0, outputTokens: 0 } })], {
      contextTokensUsed: 46_120,
      contextTokenLimit: 200_000,
    });
    // A BLOB value with a raw control character in a string (JSON refuses it; Cursor writes them).
    e.chat('c2', [prompt('v1', 0)], { status: 'generating' });
    e.put(
      'bubbleId:c2:v1',
      Buffer.from('{"_v":3,"bubbleId":"v1","type":1,"text":"a\u0001b","createdAt":"2026-12-07T10:00:00.000Z"}'),
    );
    e.put('composerData:c3', '{"composerId":');
    const r = reading(e);
    r.read();
    r.read();
    expect(r.counted('context')).toEqual([['context', 'gpt-5.2', 46_120, 200_000]]);
    expect(r.counted('prompt')).toHaveLength(2);
    expect(r.counted('skipped')).toEqual([['skipped', 'parse_error']]);
    expect(r.counted('usage')).toEqual([]);
  });

  it('skips a chat or a bubble whose JSON is too dense to parse (as a document would be), counted once, and reads the rest exactly', () => {
    const e = editor();
    e.chat('c1', [prompt('u1', 0), answer('a1', 5)]);
    e.put('composerData:c2', `{"composerId":"c2","fullConversationHeadersOnly":${denseJson(100_000)}}`);
    e.chat('c3', [prompt('v1', 10), answer('v2', 15)]);
    e.put('bubbleId:c3:v2', Buffer.from(`{"_v":3,"bubbleId":"v2","type":2,"codeBlocks":${denseJson(100_000)}}`));
    const r = reading(e);
    r.read();
    r.read();
    expect(r.counted('skipped')).toEqual([
      ['skipped', 'file_too_large'],
      ['skipped', 'file_too_large'],
    ]);
    expect(r.counted('prompt')).toEqual([
      ['prompt', T0],
      ['prompt', T0 + 10_000],
    ]);
    // c3's turn ends when the chat was last written, its answer unread.
    expect(r.counted('turnEnded')).toEqual([
      ['turnEnded', 'completed', T0 + 5000],
      ['turnEnded', 'completed', T0 + 60_000],
    ]);
  });

  it("finds a chat's folder through the workspace that lists it, where the chat names none", () => {
    const e = editor();
    const ws = join(e.userDir, 'User', 'workspaceStorage', 'abc');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'workspace.json'), '{"folder":"file:///home/dev/src/my%20app"}');
    const wdb = new Database(join(ws, 'state.vscdb'));
    wdb.exec(KV.replace('%s', 'ItemTable'));
    wdb
      .prepare('INSERT INTO ItemTable VALUES (?, ?)')
      .run('workbench.panel.composerChatViewPane.1', '{"workbench.panel.aichat.view.c1":{"collapsed":false}}');
    wdb.close();
    e.chat('c1', [prompt('u1', 0), answer('a1', 5)], { workspaceIdentifier: undefined });
    const r = reading(e);
    r.read();
    expect(r.counted('meta')[0]).toEqual([
      'meta',
      { cwd: '/home/dev/src/my app', hosted: true, model: 'claude-4.5-sonnet' },
    ]);
  });

  it("reports Cursor's context meter of each chat of the sample HOME of editor stores, none where it records none", async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'homes/editor-stores-and-clis'), home, { recursive: true });
    const truth = (
      JSON.parse(readFileSync(join(home, 'ground-truth.json'), 'utf8')) as {
        sessions: { harness: string; session_id: string; context_tokens: number | null }[];
      }
    ).sessions.filter((t) => t.harness === 'cursor');
    const { store } = await readHome(cursor, join(home, '.config/Cursor'));
    expect(
      truth.map((t) => [t.session_id, store.sessions.get(`cursor/${t.session_id}`)?.contextTokens || null]),
    ).toEqual(truth.map((t) => [t.session_id, t.context_tokens]));
  });

  it('finds no chat, and no error, in a global database without the chat table', async () => {
    const e = editor();
    e.db.exec('DROP TABLE cursorDiskKV');
    e.db.close();
    const { store, collector } = await readHome(cursor, e.userDir);
    expect([store.sessions.size, collector.stats.success]).toEqual([0, true]);
  });

  it('looks in the user dir on Linux ($XDG_CONFIG_HOME or ~/.config), macOS and Windows', () => {
    expect(cursor.defaultRoots({}, '/home/dev')).toEqual([
      '/home/dev/.config/Cursor',
      '/home/dev/Library/Application Support/Cursor',
    ]);
    expect(cursor.defaultRoots({ XDG_CONFIG_HOME: '/cfg', APPDATA: '/appdata' }, '/home/dev')).toEqual([
      '/cfg/Cursor',
      '/home/dev/Library/Application Support/Cursor',
      '/appdata/Cursor',
    ]);
    const e = editor();
    expect(cursor.listFiles(e.userDir)).toEqual([{ path: e.path, sessionId: 'cursor' }]);
  });

  it('reads VS Code URIs as paths', () => {
    expect(uriPath('file:///c%3A/src/app')).toBe('c:/src/app');
    expect(uriPath('file://wsl.localhost/Ubuntu/home/dev/app')).toBe('/home/dev/app');
    expect(uriPath('vscode-remote://ssh-remote%2Bbuildbox/srv/acme-api')).toBe('/srv/acme-api');
    expect(uriPath('untitled:Untitled-1')).toBeUndefined();
  });

  // cursor-ide §9: the editor writes its agent chats' transcripts where the agent CLI writes its own.
  it("counts a chat the editor also wrote as an agent transcript once, as the editor's", async () => {
    const e = editor();
    e.chat('7f4e8c1a-0000-4000-8000-000000000001', [prompt('u1', 0), answer('a1', 5)]);
    e.db.close();
    const transcript = (id: string) => {
      const dir = join(e.home, '.cursor', 'projects', 'home-dev-src-app', 'agent-transcripts', id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `${id}.jsonl`),
        '{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\\ndo it\\n</user_query>"}]}}\n{"role":"assistant","message":{"content":[{"type":"text","text":"done"}]}}\n',
      );
    };
    transcript('7f4e8c1a-0000-4000-8000-000000000001');
    transcript('0b5e3c1e-0000-4000-8000-000000000002');
    expect(cursorAgent.listFiles(join(e.home, '.cursor')).map((f) => f.sessionId)).toEqual([
      '0b5e3c1e-0000-4000-8000-000000000002',
    ]);
    const agent = await readHome(cursorAgent, join(e.home, '.cursor'));
    const ide = await readHome(cursor, e.userDir);
    expect([...agent.store.sessions.keys(), ...ide.store.sessions.keys()].sort()).toEqual([
      'cursor-agent/0b5e3c1e-0000-4000-8000-000000000002',
      'cursor/7f4e8c1a-0000-4000-8000-000000000001',
    ]);
    const prompts = (s: Awaited<ReturnType<typeof readHome>>['store']) =>
      [...s.counters.values()].filter((c) => c.metric === 'prompts').reduce((a, c) => a + c.value, 0);
    expect(prompts(agent.store) + prompts(ide.store)).toBe(2);
  });
});
