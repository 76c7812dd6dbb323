import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usageOf } from '../../src/readers/opencode/records.js';
import { opencode } from '../../src/readers/opencode/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import type { DbState } from '../../src/readers/opencode/records.js';
import type { Usage } from '../../src/session/types.js';
import { recorder, type Recorded } from '../helpers/events.js';
import { OpenCodeDb, T0, tokens } from '../helpers/opencode-db.js';
import { tempDir } from '../helpers/run.js';

/** Reads a database the way the collector does, keeping the reader's state between reads. */
function reading(db: OpenCodeDb) {
  const file: SessionFile = { path: db.path, sessionId: 'opencode.db' };
  const r = recorder();
  const sessions: string[] = [];
  let state: DbState = opencode.initialState(file);
  return {
    log: r.log,
    sessions,
    read(): Recorded[] {
      state = JSON.parse(JSON.stringify(state)) as DbState; // persisted between reads
      const before = r.log.length;
      opencode.readStore(file, state, (id) => {
        sessions.push(id);
        return r.events;
      });
      return r.log.slice(before);
    },
  };
}

const named = (log: Recorded[], name: string) => log.filter(([e]) => e === name);
const total = (log: Recorded[]) =>
  named(log, 'usage').reduce<Usage>(
    (a, [, , u]) => {
      const x = u as Usage;
      return {
        input: a.input + x.input,
        output: a.output + x.output,
        cacheRead: a.cacheRead + x.cacheRead,
        cacheWrite: a.cacheWrite + x.cacheWrite,
        cacheWrite1h: 0,
        reasoning: a.reasoning + x.reasoning,
      };
    },
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
  );

describe('OpenCode tokens', () => {
  it('puts reasoning into output unless `total` says it already is', () => {
    expect(usageOf(tokens(445, 44, 12, 789, 0, 1290))).toMatchObject({
      input: 445,
      output: 56,
      reasoning: 12,
      cacheRead: 789,
    });
    expect(usageOf(tokens(445, 56, 12, 789, 0, 1290))).toMatchObject({ output: 56, reasoning: 12 });
    expect(usageOf(tokens(10, 5, 3, 0))).toMatchObject({ output: 8, reasoning: 3 });
  });
});

describe('OpenCode databases', () => {
  it('are found in the data folder (channel databases too) or named by OPENCODE_DB, a root of its own', () => {
    const data = tempDir();
    for (const name of [
      'opencode.db',
      'opencode-beta.db',
      'opencode.db-wal',
      'opencode.db.bak',
      'auth.json',
      'kilo.db',
    ])
      writeFileSync(join(data, name), '');
    expect(
      opencode
        .listFiles(data)
        .map((f) => basename(f.path))
        .sort(),
    ).toEqual(['opencode-beta.db', 'opencode.db']);
    expect(opencode.defaultRoots({ XDG_DATA_HOME: '/x' }, '/home/u')).toEqual(['/x/opencode']);
    expect(opencode.defaultRoots({}, '/home/u')).toEqual(['/home/u/.local/share/opencode']);
    expect(opencode.defaultRoots({ OPENCODE_DB: '/srv/oc/work.db' }, '/home/u')).toEqual([
      '/home/u/.local/share/opencode',
      '/srv/oc/work.db',
    ]);
    expect(opencode.defaultRoots({ OPENCODE_DB: 'other.db' }, '/home/u')).toEqual([
      '/home/u/.local/share/opencode',
      '/home/u/.local/share/opencode/other.db',
    ]);
    expect(opencode.defaultRoots({ OPENCODE_DB: ':memory:' }, '/home/u')).toEqual(['/home/u/.local/share/opencode']);
    const named = join(data, 'opencode-beta.db');
    expect(opencode.listFiles(named).map((f) => f.path)).toEqual([named]);
    expect(opencode.watchFiles!(named)).toEqual([named, `${named}-wal`]);
    expect(opencode.watchFiles!(data)).toEqual([
      join(data, 'opencode.db'),
      join(data, 'opencode.db-wal'),
      join(data, 'opencode-beta.db'),
      join(data, 'opencode-beta.db-wal'),
    ]);
  });
});

describe('OpenCode database reader', () => {
  it('counts every call of a message from its step-finish parts (the message keeps only the last)', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.user('s1', 'u1', 1);
    db.assistant('s1', 'a1', 2, {
      tokens: tokens(20, 5, 0, 100),
      time: { created: T0 + 2, completed: T0 + 9 },
      finish: 'stop',
    });
    db.part('s1', 'a1', 'p1', 3, { type: 'step-finish', reason: 'tool-calls', cost: 0, tokens: tokens(10, 4, 1, 50) });
    db.part('s1', 'a1', 'p2', 8, { type: 'step-finish', reason: 'stop', cost: 0, tokens: tokens(20, 5, 0, 100) });
    const log = reading(db).read();
    expect(total(log)).toEqual({ input: 30, output: 10, cacheRead: 150, cacheWrite: 0, cacheWrite1h: 0, reasoning: 1 });
    expect(named(log, 'prompt')).toHaveLength(1);
    expect(named(log, 'turnEnded')).toEqual([['turnEnded', 'completed', T0 + 9]]);
    expect(log).toContainEqual(['context', 'claude-sonnet-4-5', 120]);
    expect(log).toContainEqual(['meta', { cwd: '/src/app' }]);
  });

  it('reads a session of a hundred and fifty thousand parts in one go', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.user('s1', 'u1', 1);
    db.assistant('s1', 'a1', 2);
    const part = db.db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)');
    const data = JSON.stringify({ type: 'step-finish', cost: 0, tokens: tokens(1, 1, 0, 0) });
    db.db.transaction(() => {
      for (let i = 0; i < 150_000; i++) part.run(`p${i}`, 'a1', 's1', T0 + 3 + i, T0 + 3 + i, data);
    })();
    expect(total(reading(db).read()).input).toBe(150_000);
  }, 30_000);

  it('uses the cost OpenCode recorded, and list prices where it recorded 0', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.assistant('s1', 'a1', 1);
    db.part('s1', 'a1', 'p1', 2, { type: 'step-finish', cost: 0.25, tokens: tokens(1, 1, 0, 0) });
    db.part('s1', 'a1', 'p2', 3, { type: 'step-finish', cost: 0, tokens: tokens(1, 1, 0, 0) });
    expect(named(reading(db).read(), 'usage').map((u) => u[5])).toEqual([0.25, undefined]);
  });

  it('reads only rows changed since the last read, and rows updated in place while they stream', () => {
    const db = new OpenCodeDb();
    const r = reading(db);
    db.session('s1', 0);
    db.user('s1', 'u1', 1);
    db.assistant('s1', 'a1', 2);
    expect(named(r.read(), 'turnStarted')).toHaveLength(1);
    // A tool part streams without touching the session or the message row.
    db.part('s1', 'a1', 'p1', 10, {
      type: 'tool',
      tool: 'question',
      callID: 'c1',
      state: { status: 'running', input: {} },
    });
    expect(named(r.read(), 'toolCall')).toEqual([
      ['toolCall', 'c1', { tool: 'question', kind: 'communicate', waits: 'question' }],
    ]);
    db.part(
      's1',
      'a1',
      'p1',
      10,
      { type: 'tool', tool: 'question', callID: 'c1', state: { status: 'completed', input: {}, output: 'yes' } },
      20,
    );
    const later = r.read();
    expect(named(later, 'toolResult')).toEqual([
      ['toolResult', 'c1', false, { tool: 'question', kind: 'communicate', waits: 'question' }],
    ]);
    expect(named(later, 'toolCall')).toEqual([]);
    db.assistant('s1', 'a1', 2, { time: { created: T0 + 2, completed: T0 + 30 }, finish: 'stop' });
    db.message(
      's1',
      'a1',
      2,
      { role: 'assistant', modelID: 'm', time: { created: T0 + 2, completed: T0 + 30 }, finish: 'stop' },
      30,
    );
    expect(named(r.read(), 'turnEnded')).toHaveLength(1);
    expect(named(r.log, 'turnStarted')).toHaveLength(1);
    expect(named(r.log, 'prompt')).toHaveLength(1);
  });

  it('folds a subagent session into the session that started it, without its prompts and turns', () => {
    const db = new OpenCodeDb();
    db.session('root', 0);
    db.user('root', 'u1', 1);
    db.assistant('root', 'a1', 2);
    db.part('root', 'a1', 'task', 3, {
      type: 'tool',
      tool: 'task',
      callID: 'c1',
      state: { status: 'running', input: {}, metadata: { sessionId: 'child' } },
    });
    db.session('child', 4, { parent: 'root' });
    db.user('child', 'cu1', 5, 'the task prompt');
    db.assistant('child', 'ca1', 6, { time: { created: T0 + 6, completed: T0 + 8 }, finish: 'stop' });
    db.part('child', 'ca1', 'cp1', 7, { type: 'step-finish', cost: 0, tokens: tokens(7, 3, 0, 0) });
    const r = reading(db);
    const log = r.read();
    expect(new Set(r.sessions)).toEqual(new Set(['root']));
    expect(total(log)).toMatchObject({ input: 7, output: 3 });
    expect(named(log, 'prompt')).toHaveLength(1);
    expect(named(log, 'turnStarted')).toHaveLength(1);
    expect(named(log, 'turnEnded')).toHaveLength(0);
    expect(named(log, 'toolCall')).toEqual([['toolCall', 'c1', { tool: 'task', kind: 'agent', waits: 'subagents' }]]);
  });

  it('ends a turn as failed on an error, interrupted when the user aborted, and counts failed tools', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.user('s1', 'u1', 1);
    db.part('s1', 'u1', 'x', 1, { type: 'text', text: 'file contents', synthetic: true });
    db.assistant('s1', 'a1', 2);
    db.part('s1', 'a1', 'p1', 3, {
      type: 'tool',
      tool: 'edit',
      callID: 'c1',
      state: { status: 'error', input: {}, error: 'no such file' },
    });
    db.part('s1', 'a1', 'p2', 3, {
      type: 'tool',
      tool: 'github_create_issue',
      callID: 'c2',
      state: { status: 'completed', input: {} },
    });
    db.assistant('s1', 'a1', 2, {
      time: { created: T0 + 2, completed: T0 + 5 },
      error: { name: 'APIError', data: { statusCode: 500 } },
    });
    db.user('s1', 'u2', 10);
    db.assistant('s1', 'a2', 11, {
      time: { created: T0 + 11, completed: T0 + 12 },
      error: { name: 'MessageAbortedError', data: {} },
    });
    const log = reading(db).read();
    expect(named(log, 'turnEnded').map(([, o]) => o)).toEqual(['failed', 'interrupted']);
    expect(named(log, 'prompt')).toHaveLength(2);
    expect(named(log, 'toolResult')).toEqual([
      ['toolResult', 'c1', true, { tool: 'edit', kind: 'edit' }],
      ['toolResult', 'c2', false, { tool: 'mcp:github', kind: 'other' }],
    ]);
  });

  it('counts the lines of a turn from its diff summary once the turn ended', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.message('s1', 'u1', 1, {
      role: 'user',
      time: { created: T0 + 1 },
      summary: {
        diffs: [
          { file: 'a.ts', additions: 7, deletions: 2 },
          { file: 'b.ts', additions: 1, deletions: 0 },
        ],
      },
    });
    db.assistant('s1', 'a1', 2, { parentID: 'u1', time: { created: T0 + 2, completed: T0 + 3 }, finish: 'stop' });
    const r = reading(db);
    expect(named(r.read(), 'lines')).toEqual([['lines', 8, 2]]);
    db.touch('s1', 50);
    expect(named(r.read(), 'lines')).toEqual([]);
  });

  it("reports the session's plan as it is now, items by state", () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    const todo = db.db.prepare('INSERT INTO todo VALUES (?, ?, ?, ?, ?)');
    for (const [i, status] of ['completed', 'completed', 'in_progress', 'pending', 'weird'].entries())
      todo.run('s1', i, 'item', status, 'high');
    expect(named(reading(db).read(), 'todos')).toEqual([['todos', { completed: 2, in_progress: 1, pending: 1 }]]);
  });

  it('counts a compaction once', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.message('s1', 'u1', 1, { role: 'user', time: { created: T0 + 1 } });
    db.part('s1', 'u1', 'c', 1, { type: 'compaction', auto: true });
    expect(named(reading(db).read(), 'compaction')).toHaveLength(1);
  });

  it('costs a renamed column only that field, not the harness', () => {
    const db = new OpenCodeDb({
      schema: `
      CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, dir TEXT, time_created INTEGER, time_updated INTEGER);
      CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
      CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);`,
    });
    db.db.prepare('INSERT INTO session VALUES (?, NULL, ?, ?, ?)').run('s1', '/src/app', T0, T0);
    db.assistant('s1', 'a1', 1);
    db.part('s1', 'a1', 'p1', 2, { type: 'step-finish', cost: 0, tokens: tokens(3, 2, 0, 0) });
    const log = reading(db).read();
    expect(total(log)).toMatchObject({ input: 3, output: 2 });
    expect(named(log, 'meta').some(([, m]) => (m as { cwd?: string }).cwd)).toBe(false);
  });

  it('skips a message or part whose data is not JSON, with a reason', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run('m1', 's1', T0, T0, '{"role":');
    db.db
      .prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)')
      .run('p1', 'm1', 's1', T0 + 1, T0 + 1, '{"type":"step-finish",');
    expect(named(reading(db).read(), 'skipped')).toEqual([
      ['skipped', 'parse_error'],
      ['skipped', 'parse_error'],
    ]);
  });
});

describe('OpenCode 2.x', () => {
  it('reads session_v2 and session_message, in place of the same session carried over from 1.x', () => {
    const db = new OpenCodeDb({ v2: true });
    db.session('s1', 0);
    db.assistant('s1', 'old', 1);
    db.part('s1', 'old', 'p1', 2, { type: 'step-finish', cost: 0, tokens: tokens(100, 100, 0, 0) });
    db.session('s1', 0, { table: 'session_v2' });
    db.row('s1', 'm1', 'user', 1, 1, { time: { created: T0 + 1 }, text: 'hi' });
    db.row('s1', 'm2', 'assistant', 2, 2, {
      time: { created: T0 + 2, completed: T0 + 4 },
      model: { id: 'claude-sonnet-4-5', providerID: 'anthropic' },
      cost: 0.5,
      tokens: tokens(10, 5, 2, 30),
      content: [
        { type: 'tool', id: 'c1', name: 'shell', state: { status: 'completed', input: {} }, time: { created: T0 + 3 } },
      ],
    });
    db.row('s1', 'm3', 'idle', 3, 5, { time: { created: T0 + 5 }, outcome: 'failed' });
    const log = reading(db).read();
    expect(total(log)).toMatchObject({ input: 10, output: 7, cacheRead: 30, reasoning: 2 });
    expect(named(log, 'usage')[0]![5]).toBe(0.5);
    expect(named(log, 'prompt')).toHaveLength(1);
    expect(named(log, 'toolCall')).toEqual([['toolCall', 'c1', { tool: 'shell', kind: 'execute' }]]);
    expect(named(log, 'turnEnded')).toEqual([['turnEnded', 'failed', T0 + 5]]);
  });

  it('reports when the person last looked at a session (its read marker)', () => {
    const db = new OpenCodeDb({ v2: true });
    db.session('s1', 0, { table: 'session_v2' });
    db.db.prepare('UPDATE session_v2 SET time_viewed = ? WHERE id = ?').run(T0 + 7, 's1');
    expect(named(reading(db).read(), 'viewed')).toEqual([['viewed', T0 + 7]]);
  });

  it('counts a streamed answer once it is complete, from the row updated in place', () => {
    const db = new OpenCodeDb({ v2: true });
    const r = reading(db);
    db.session('s1', 0, { table: 'session_v2' });
    db.row('s1', 'm1', 'user', 1, 1, { time: { created: T0 + 1 }, text: 'hi' });
    db.row('s1', 'm2', 'assistant', 2, 2, {
      time: { created: T0 + 2 },
      model: { id: 'm' },
      tokens: tokens(1, 1, 0, 0),
      content: [],
    });
    expect(named(r.read(), 'usage')).toEqual([]);
    db.row(
      's1',
      'm2',
      'assistant',
      2,
      2,
      { time: { created: T0 + 2, completed: T0 + 9 }, model: { id: 'm' }, tokens: tokens(10, 4, 0, 0), content: [] },
      9,
    );
    expect(total(r.read())).toMatchObject({ input: 10, output: 4 });
    db.row('s1', 'm3', 'idle', 3, 10, { time: { created: T0 + 10 }, outcome: 'succeeded' });
    expect(named(r.read(), 'turnEnded')).toEqual([['turnEnded', 'completed', T0 + 10]]);
    expect(total(r.log)).toMatchObject({ input: 10, output: 4 });
  });
});

describe('OpenCode archive', () => {
  it('reports a session archived while time_archived is set, and taken out of the archive when it is cleared', () => {
    const db = new OpenCodeDb();
    db.db.exec('ALTER TABLE session ADD COLUMN time_archived INTEGER');
    db.session('s1', 0);
    db.user('s1', 'u1', 1);
    db.db.prepare('UPDATE session SET time_archived = ?, time_updated = ? WHERE id = ?').run(T0 + 5, T0 + 5, 's1');
    const r = reading(db);
    expect(named(r.read(), 'archived')).toEqual([['archived', true]]);
    db.db.prepare('UPDATE session SET time_archived = NULL, time_updated = ? WHERE id = ?').run(T0 + 9, 's1');
    expect(named(r.read(), 'archived')).toEqual([['archived', false]]);
    db.close();
  });
});
