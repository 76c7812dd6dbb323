import { Database } from '../helpers/sqlite.js';
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { antigravityCli, type AntigravityState } from '../../src/readers/antigravity-cli/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { recorder, type Recorded } from '../helpers/events.js';
import { AGY_SCHEMA, generation, stepPayload, type StepSpec } from '../../bench/longtail-corpus.js';
import { tempDir } from '../helpers/run.js';

const T0 = Date.UTC(2026, 10, 30, 11, 0, 0) / 1000;
const ID = '45e2d1f4-b232-4a03-87e7-579e83a7de37';

const payload = (s: StepSpec) => stepPayload({ ...s, at: T0 + s.at });
const usage = (input: number, output: number, cacheRead = 0) => ({ input, output, cacheRead });

function setup() {
  const root = tempDir();
  mkdirSync(join(root, 'conversations'));
  const path = join(root, 'conversations', `${ID}.db`);
  const db = new Database(path);
  db.exec(AGY_SCHEMA);
  const file: SessionFile = { path, sessionId: ID };
  const state: AntigravityState = antigravityCli.initialState(file);
  const r = recorder();
  // The store's mtime, set back far enough for its signature to be trusted (see storeChanged),
  // and moved on by every write.
  let mtime = 1_700_000_000;
  const write = (sql: string, ...args: unknown[]) => {
    db.prepare(sql).run(...args);
    mtime++;
  };
  const put = (idx: number, s: StepSpec, p = payload(s)) =>
    write(
      'INSERT OR REPLACE INTO steps (idx, step_type, status, step_payload) VALUES (?, ?, ?, ?)',
      idx,
      s.type,
      s.status,
      p,
    );
  const gen = (idx: number, data: Buffer) =>
    write('INSERT OR REPLACE INTO gen_metadata (idx, data, size) VALUES (?, ?, ?)', idx, data, data.length);
  const prompt = (at: number) =>
    appendFileSync(
      join(root, 'history.jsonl'),
      `${JSON.stringify({ display: 'go', timestamp: (T0 + at) * 1000, workspace: '/src/web-ui', conversationId: ID })}\n`,
    );
  /** Reads the store; what it reported since the previous read. */
  const read = () => {
    utimesSync(path, mtime, mtime);
    const from = r.log.length;
    const changed = antigravityCli.readStore(file, state, () => r.events);
    return { changed, log: r.log.slice(from) };
  };
  return { root, db, write, put, gen, prompt, read, state };
}
const of = (log: Recorded[], name: string) => log.filter(([e]) => e === name);
const USER = 14;
const PLANNER = 15;
const TOOL = 132;

describe('antigravity-cli reader', () => {
  it('reports a turn from its steps: prompt, tool call, result and end; tokens once per generation', () => {
    const t = setup();
    t.prompt(0);
    t.put(0, { type: USER, status: 3, at: 0 });
    t.put(1, { type: PLANNER, status: 3, at: 2, calls: [['call_1', 'run_command']], thinking: 40 });
    t.put(2, { type: TOOL, status: 2, at: 3, executes: 'call_1' });
    t.gen(0, generation(usage(900, 150, 3000), 'gemini-3.1-pro', [1]));
    const first = t.read();
    expect(first.changed).toBe(true);
    expect(of(first.log, 'meta')).toEqual([['meta', { cwd: '/src/web-ui', model: 'gemini-3.1-pro' }]]);
    expect(of(first.log, 'prompt')).toEqual([['prompt', (T0 + 0) * 1000]]);
    expect(of(first.log, 'toolCall')).toEqual([['toolCall', 'call_1', { tool: 'run_command', kind: 'execute' }]]);
    // tokens from the generation; its thinking part from the step it produced
    expect(of(first.log, 'usage')).toEqual([
      [
        'usage',
        'gemini-3.1-pro',
        { input: 900, output: 150, cacheRead: 3000, cacheWrite: 0, cacheWrite1h: 0, reasoning: 40 },
        3900,
        (T0 + 2) * 1000,
      ],
    ]);
    expect(of(first.log, 'turnEnded')).toEqual([]);
    expect(t.read()).toEqual({ changed: false, log: [] });

    // the command finishes and the model answers; the generations are saved again, with new bytes
    t.put(2, { type: TOOL, status: 3, at: 3, executes: 'call_1' });
    t.put(3, { type: PLANNER, status: 3, at: 5 });
    t.gen(0, generation(usage(900, 150, 3000), 'gemini-3.1-pro-x', [1]));
    t.gen(1, generation(usage(100, 20), 'gemini-3.1-pro', [3]));
    const second = t.read().log;
    expect(of(second, 'toolResult')).toEqual([['toolResult', 'call_1', false]]);
    expect(of(second, 'usage').map(([, , u]) => (u as { input: number }).input)).toEqual([100]);
    expect(of(second, 'prompt')).toEqual([]);
    expect(of(second, 'turnEnded')).toEqual([['turnEnded', 'completed', (T0 + 5) * 1000]]);
  });

  it('waits for approval while the step of a call is WAITING, and counts a failed call', () => {
    const t = setup();
    t.put(0, { type: USER, status: 3, at: 0 });
    t.put(1, { type: PLANNER, status: 3, at: 1, calls: [['call_1', 'run_command']] });
    t.put(2, { type: TOOL, status: 9, at: 2, executes: 'call_1' });
    expect(of(t.read().log, 'toolCall')).toEqual([
      ['toolCall', 'call_1', { tool: 'run_command', kind: 'execute', waits: 'approval' }],
    ]);
    t.put(2, { type: TOOL, status: 7, at: 2, executes: 'call_1' });
    t.put(3, { type: PLANNER, status: 3, at: 4 });
    const log = t.read().log;
    expect(of(log, 'toolResult')).toEqual([['toolResult', 'call_1', true]]);
    expect(of(log, 'turnEnded')).toEqual([['turnEnded', 'completed', (T0 + 4) * 1000]]);
  });

  it('starts a turn for a prompt in the history newer than every step, and counts the prompt once its step is saved', () => {
    const t = setup();
    t.prompt(0);
    t.put(0, { type: USER, status: 3, at: 0 });
    t.put(1, { type: PLANNER, status: 3, at: 1 });
    expect(of(t.read().log, 'turnEnded')).toHaveLength(1);
    t.prompt(600);
    const underway = t.read().log;
    expect(underway.filter(([e]) => e.startsWith('turn') || e === 'prompt')).toEqual([
      ['turnStarted', (T0 + 600) * 1000],
    ]);
    t.put(2, { type: USER, status: 3, at: 601 });
    t.put(3, { type: PLANNER, status: 3, at: 605 });
    const saved = t.read().log;
    expect(saved.filter(([e]) => e.startsWith('turn') || e === 'prompt')).toEqual([
      ['prompt', (T0 + 601) * 1000],
      ['turnEnded', 'completed', (T0 + 605) * 1000],
    ]);
  });

  it('counts the steps of a rewind again (numbers reused by another trajectory), not the ones kept', () => {
    const t = setup();
    t.put(0, { type: USER, status: 3, at: 0 });
    t.put(1, { type: PLANNER, status: 3, at: 1 });
    t.gen(0, generation(usage(10, 1), 'm', [1]));
    t.read();
    t.write('DELETE FROM steps WHERE idx >= 1');
    t.put(1, { type: USER, status: 3, at: 50, traj: 'traj-2' });
    t.put(2, { type: PLANNER, status: 3, at: 51, traj: 'traj-2' });
    t.gen(0, generation(usage(20, 2), 'm', [2]));
    const log = t.read().log;
    expect(of(log, 'prompt')).toHaveLength(1);
    expect(of(log, 'usage').map(([, , u]) => (u as { input: number }).input)).toEqual([20]);
  });

  it('counts a generation once the step it produced is saved', () => {
    const t = setup();
    t.put(0, { type: USER, status: 3, at: 0 });
    t.gen(0, generation(usage(10, 1), 'm', [1]));
    expect(of(t.read().log, 'usage')).toEqual([]);
    t.put(1, { type: PLANNER, status: 3, at: 1 });
    expect(of(t.read().log, 'usage').map(([, , u]) => (u as { input: number }).input)).toEqual([10]);
    t.gen(0, generation(usage(10, 1), 'm', [1]));
    expect(of(t.read().log, 'usage')).toEqual([]);
  });

  it('takes the cwd from cache/last_conversations.json when the history has no prompt of the conversation', () => {
    const t = setup();
    mkdirSync(join(t.root, 'cache'));
    writeFileSync(
      join(t.root, 'cache', 'last_conversations.json'),
      JSON.stringify({ '/src/api': 'other', '/src/web-ui': ID }),
    );
    t.put(0, { type: USER, status: 3, at: 0 });
    expect(of(t.read().log, 'meta')).toEqual([['meta', { cwd: '/src/web-ui', model: undefined }]]);
  });

  it('reports the task.md checklist as the plan', () => {
    const t = setup();
    mkdirSync(join(t.root, 'brain', ID), { recursive: true });
    writeFileSync(
      join(t.root, 'brain', ID, 'task.md'),
      '# Task\n\n- [x] Read the code\n- [/] Make the change\n  - [ ] Test it\n- [ ] Ship\n',
    );
    t.put(0, { type: USER, status: 3, at: 0 });
    expect(of(t.read().log, 'todos')).toEqual([['todos', { completed: 1, in_progress: 1, pending: 2 }]]);
  });

  it('skips a database of another version as unknown_shape (drift), reporting no zeros', () => {
    const t = setup();
    t.put(0, { type: USER, status: 3, at: 0 });
    t.gen(0, generation(usage(10, 1), 'm', [0]));
    t.write('PRAGMA user_version = 2');
    const log = t.read().log;
    expect(log).toEqual([['skipped', 'unknown_shape']]);
  });

  it('skips a file that is no database as parse_error, and reads it again only when it changed', () => {
    const root = tempDir();
    mkdirSync(join(root, 'conversations'));
    const path = join(root, 'conversations', `${ID}.db`);
    writeFileSync(path, 'not a database, but long enough to have a header of sorts: '.repeat(100));
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const file: SessionFile = { path, sessionId: ID };
    const state = antigravityCli.initialState(file);
    const r = recorder();
    expect(antigravityCli.readStore(file, state, () => r.events)).toBe(true);
    expect(r.log).toEqual([['skipped', 'parse_error']]);
    expect(antigravityCli.readStore(file, state, () => r.events)).toBe(false);
  });

  it('skips a step whose payload disagrees with its row, or does not parse, and reads the rest', () => {
    const t = setup();
    t.put(0, { type: USER, status: 3, at: 0 });
    t.put(1, { type: PLANNER, status: 3, at: 1 }, payload({ type: 99, status: 3, at: 1 }));
    t.put(2, { type: PLANNER, status: 3, at: 2 }, Buffer.from([0x0a, 0x05, 0x01]));
    t.gen(0, Buffer.from('garbage'));
    const log = t.read().log;
    expect(
      of(log, 'skipped')
        .map(([, r]) => r)
        .sort(),
    ).toEqual(['parse_error', 'unknown_shape', 'unknown_shape']);
    expect(of(log, 'prompt')).toHaveLength(1);
  });
});
