import { utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opencode } from '../../src/readers/opencode/reader.js';
import type { DbState } from '../../src/readers/opencode/records.js';
import type { Usage } from '../../src/session/types.js';
import { recorder, type Recorded } from '../helpers/events.js';
import { OpenCodeDb, tokens } from '../helpers/opencode-db.js';
import { at, OpenCodeStorage } from '../helpers/opencode-storage.js';
import { tempDir } from '../helpers/run.js';
import { readerConformance } from './conformance.js';

/** Reads every store of a root in listing order, as the collector does, keeping each store's state. */
function reading(root: string) {
  const r = recorder();
  const sessions: string[] = [];
  const states = new Map<string, DbState>();
  return {
    log: r.log,
    sessions,
    /** The new events, and whether each store said it changed. */
    read(): { log: Recorded[]; changed: boolean[] } {
      const before = r.log.length;
      const changed = opencode.listFiles(root).map((file) => {
        const state = JSON.parse(JSON.stringify(states.get(file.path) ?? opencode.initialState(file))) as DbState; // persisted
        const c = opencode.readStore(file, state, (id) => {
          sessions.push(id);
          return r.events;
        });
        states.set(file.path, state);
        return c;
      });
      return { log: r.log.slice(before), changed };
    },
  };
}

const named = (log: Recorded[], name: string) => log.filter(([e]) => e === name);
const total = (log: Recorded[]) =>
  named(log, 'usage').reduce(
    (a, [, , u]) => {
      const x = u as Usage;
      return {
        input: a.input + x.input,
        output: a.output + x.output,
        cacheRead: a.cacheRead + x.cacheRead,
        reasoning: a.reasoning + x.reasoning,
      };
    },
    { input: 0, output: 0, cacheRead: 0, reasoning: 0 },
  );

/** A finished one-turn session: a prompt, two model calls, a tool call. */
function oneTurn(s: OpenCodeStorage, id = 's1'): void {
  s.session(id, 0);
  s.user(id, `${id}-u1`, 1);
  s.assistant(
    id,
    `${id}-a1`,
    2,
    { parentID: `${id}-u1`, tokens: tokens(20, 5, 0, 100), time: { created: at(2), completed: at(9) }, finish: 'stop' },
    9,
  );
  s.part(id, `${id}-a1`, 'p1', 3, {
    type: 'tool',
    tool: 'bash',
    callID: `${id}-c1`,
    state: { status: 'completed', input: {}, output: 'ok' },
  });
  s.part(id, `${id}-a1`, 'p2', 4, { type: 'step-finish', reason: 'tool-calls', cost: 0, tokens: tokens(10, 4, 1, 50) });
  s.part(id, `${id}-a1`, 'p3', 8, { type: 'step-finish', reason: 'stop', cost: 0.5, tokens: tokens(20, 5, 0, 100) });
}

describe('OpenCode JSON storage (before 1.2)', () => {
  it('counts every call from its step-finish part, with the turn, prompt, tool and working directory', () => {
    const s = new OpenCodeStorage();
    oneTurn(s);
    const { log } = reading(s.root).read();
    expect(total(log)).toEqual({ input: 30, output: 10, cacheRead: 150, reasoning: 1 });
    expect(named(log, 'usage').map((u) => u[5])).toEqual([undefined, 0.5]);
    expect(named(log, 'prompt')).toHaveLength(1);
    expect(named(log, 'turnStarted')).toEqual([['turnStarted', at(1)]]);
    expect(named(log, 'turnEnded')).toEqual([['turnEnded', 'completed', at(9)]]);
    expect(named(log, 'toolResult')).toEqual([['toolResult', 's1-c1', false, { tool: 'bash', kind: 'execute' }]]);
    expect(log).toContainEqual(['context', 'claude-sonnet-4-5', 120]);
    expect(log).toContainEqual(['meta', { cwd: '/src/app' }]);
  });

  it('returns false for an unchanged tree, also with its state restored', () => {
    const s = new OpenCodeStorage();
    oneTurn(s);
    const r = reading(s.root);
    expect(r.read().changed).toEqual([true]);
    expect(r.read()).toEqual({ log: [], changed: [false] });
  });

  it('reads a part rewritten in place (pending, then completed) again, counting each thing once', () => {
    const s = new OpenCodeStorage();
    const r = reading(s.root);
    s.session('s1', 0);
    s.user('s1', 'u1', 1);
    s.assistant('s1', 'a1', 2);
    s.part('s1', 'a1', 'p1', 3, {
      type: 'tool',
      tool: 'question',
      callID: 'c1',
      state: { status: 'pending', input: {} },
    });
    expect(named(r.read().log, 'toolCall')).toEqual([
      ['toolCall', 'c1', { tool: 'question', kind: 'communicate', waits: 'question' }],
    ]);
    // Only the part file changes: the session is read again because its turn is open.
    s.part('s1', 'a1', 'p1', 60, {
      type: 'tool',
      tool: 'question',
      callID: 'c1',
      state: { status: 'completed', input: {}, output: 'yes' },
    });
    const later = r.read();
    expect(later.changed).toEqual([true]);
    expect(named(later.log, 'toolCall')).toEqual([]);
    expect(named(later.log, 'toolResult')).toEqual([
      ['toolResult', 'c1', false, { tool: 'question', kind: 'communicate', waits: 'question' }],
    ]);
    s.part('s1', 'a1', 'p2', 70, { type: 'step-finish', cost: 0, tokens: tokens(10, 4, 0, 0) });
    s.assistant('s1', 'a1', 2, { time: { created: at(2), completed: at(70) }, finish: 'stop' }, 70);
    expect(named(r.read().log, 'turnEnded')).toHaveLength(1);
    expect(r.read().changed).toEqual([false]);
    expect(total(r.log)).toMatchObject({ input: 10, output: 4 });
    expect(named(r.log, 'prompt')).toHaveLength(1);
    expect(named(r.log, 'turnStarted')).toHaveLength(1);
  });

  it('reads a session whose turn ended no more, unless its session file changes', () => {
    const s = new OpenCodeStorage();
    const r = reading(s.root);
    oneTurn(s);
    r.read();
    // An edit of an old part (compaction marks old tool outputs) does not touch the session.
    s.part('s1', 's1-a1', 'p1', 100, {
      type: 'tool',
      tool: 'bash',
      callID: 's1-c1',
      state: { status: 'completed', input: {}, output: '', time: { compacted: 1 } },
    });
    expect(r.read().changed).toEqual([false]);
    s.touch('s1', 200);
    s.user('s1', 'u2', 200);
    const next = r.read().log;
    expect(named(next, 'turnStarted')).toEqual([['turnStarted', at(200)]]);
    expect(named(next, 'toolResult')).toEqual([]);
  });

  it('folds a subagent session (parentID) into the session that started it, without its prompts and turns', () => {
    const s = new OpenCodeStorage();
    s.session('root', 0);
    s.user('root', 'u1', 1);
    s.assistant('root', 'a1', 2);
    s.part('root', 'a1', 'task', 3, {
      type: 'tool',
      tool: 'task',
      callID: 'c1',
      state: { status: 'running', input: {} },
    });
    s.session('child', 4, { parent: 'root', project: 'other' });
    s.user('child', 'cu1', 5, 'the task prompt');
    s.assistant('child', 'ca1', 6, { time: { created: at(6), completed: at(8) }, finish: 'stop' }, 8);
    s.part('child', 'ca1', 'cp1', 7, { type: 'step-finish', cost: 0, tokens: tokens(7, 3, 0, 0) });
    const r = reading(s.root);
    const { log } = r.read();
    expect(new Set(r.sessions)).toEqual(new Set(['root']));
    expect(total(log)).toMatchObject({ input: 7, output: 3 });
    expect(named(log, 'prompt')).toHaveLength(1);
    expect(named(log, 'turnStarted')).toHaveLength(1);
    expect(named(log, 'turnEnded')).toHaveLength(0);
  });

  it('counts the lines of a turn from the diff summary of its user message', () => {
    const s = new OpenCodeStorage();
    s.session('s1', 0);
    s.message('s1', 'u1', 1, { role: 'user', summary: { diffs: [{ file: 'a.ts', additions: 7, deletions: 2 }] } });
    s.assistant('s1', 'a1', 2, { parentID: 'u1', time: { created: at(2), completed: at(3) }, finish: 'stop' }, 3);
    expect(named(reading(s.root).read().log, 'lines')).toEqual([['lines', 7, 2]]);
  });

  it("reports the session's plan from its todo file, items by state", () => {
    const s = new OpenCodeStorage();
    oneTurn(s);
    s.write('todo/s1.json', 5, [
      { content: 'a', status: 'completed', priority: 'high' },
      { content: 'b', status: 'pending', priority: 'low' },
    ]);
    expect(named(reading(s.root).read().log, 'todos')).toEqual([['todos', { completed: 1, pending: 1 }]]);
  });

  it('counts a session 1.2 copied into the database once, from the database', () => {
    const db = new OpenCodeDb();
    db.session('s1', 0);
    db.assistant('s1', 'a1', 1);
    db.part('s1', 'a1', 'p1', 2, { type: 'step-finish', cost: 0, tokens: tokens(3, 2, 0, 0) });
    db.close();
    utimesSync(db.path, new Date(at(10)), new Date(at(10))); // written a while ago: unchanged since the first read
    const s = new OpenCodeStorage(dirname(db.path));
    oneTurn(s, 's2'); // never migrated
    // The newest files: the cursor moves past them, though they are left to the database.
    s.session('s1', 20);
    s.assistant('s1', 'a1', 21);
    s.part('s1', 'a1', 'p1', 22, { type: 'step-finish', cost: 0, tokens: tokens(3, 2, 0, 0) });
    // A part only the storage has: counted if the storage's copy of the session were read.
    s.part('s1', 'a1', 'p0', 22, { type: 'step-finish', cost: 0, tokens: tokens(100, 100, 0, 0) });
    expect(opencode.listFiles(s.root).map((f) => f.sessionId)).toEqual(['opencode.db', 'storage']);
    const r = reading(s.root);
    const { log, changed } = r.read();
    expect(changed).toEqual([true, true]);
    expect(total(log)).toEqual({ input: 3 + 30, output: 2 + 10, cacheRead: 150, reasoning: 1 });
    expect(r.read().changed).toEqual([false, false]);
  });

  it('skips a file that is not JSON with a reason', () => {
    const s = new OpenCodeStorage();
    s.session('s1', 0);
    s.assistant('s1', 'a1', 1);
    s.write('part/a1/p1.json', 2, '{"type":"step-fin');
    s.part('s1', 'a1', 'p2', 3, { type: 'step-finish', cost: 0, tokens: tokens(3, 2, 0, 0) });
    s.write('session/global/s2.json', 4, 'not json');
    const r = reading(s.root);
    const { log } = r.read();
    expect(named(log, 'skipped')).toEqual([
      ['skipped', 'parse_error'],
      ['skipped', 'parse_error'],
    ]);
    expect(total(log)).toMatchObject({ input: 3, output: 2 });
    // Later reads read only the files written since the newest one read (less a few seconds of
    // overlap): the bad files are not reported again once the cursor is past them.
    s.touch('s1', 100);
    s.user('s1', 'u1', 100);
    r.read();
    s.touch('s1', 200);
    s.user('s1', 'u2', 200);
    expect(named(r.read().log, 'skipped')).toEqual([]);
  });

  it('does not parse the parts that count nothing (reasoning, files inlined as data URLs)', () => {
    const s = new OpenCodeStorage();
    s.session('s1', 0);
    s.assistant('s1', 'a1', 1);
    // Cut short: any parse would report it.
    s.write('part/a1/p1.json', 2, '{\n  "id": "p1",\n  "messageID": "a1",\n  "type": "reasoning",\n  "text": "hm');
    s.write(
      'part/a1/p2.json',
      2,
      '{\n  "id": "p2",\n  "state": {\n    "type": "reasoning"\n  },\n  "type": "tool",\n  "tool": ',
    );
    expect(named(reading(s.root).read().log, 'skipped')).toEqual([['skipped', 'parse_error']]);
  });

  it('reads a storage written in the last seconds again: a write in the same clock tick may follow', () => {
    const s = new OpenCodeStorage();
    oneTurn(s);
    s.touch('s1', (Date.now() - at(0)) / 1000);
    const r = reading(s.root);
    expect(r.read().changed).toEqual([true]);
    expect(r.read().changed).toEqual([true]);
  });

  it('lists the storage as one store after the databases, only where it has sessions, and never watches it', () => {
    const s = new OpenCodeStorage();
    expect(opencode.listFiles(s.root)).toEqual([]);
    s.write('todo/s1.json', 0, '[]');
    expect(opencode.listFiles(s.root)).toEqual([]);
    oneTurn(s);
    expect(opencode.listFiles(s.root)).toEqual([{ path: join(s.root, 'storage'), sessionId: 'storage' }]);
    expect([...opencode.watchPaths(s.root), ...opencode.watchFiles!(s.root)].some((p) => p.includes('storage'))).toBe(
      false,
    );
  });
});

/** A small storage with a finished session, and one whose turn is still open. */
function conformanceRoot(): string {
  const s = new OpenCodeStorage(join(tempDir(), 'opencode'));
  oneTurn(s);
  s.session('s2', 20, { project: 'abc123' });
  s.user('s2', 'u1', 21);
  s.assistant('s2', 'a1', 22);
  s.part('s2', 'a1', 'p1', 23, { type: 'tool', tool: 'edit', callID: 'c9', state: { status: 'running', input: {} } });
  return s.root;
}

readerConformance(opencode, conformanceRoot(), { unwatched: ['storage'] });
