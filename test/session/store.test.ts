import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { codex } from '../../src/readers/codex/reader.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { READERS } from '../helpers/readers.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';
import { sinkOf } from '../helpers/events.js';

describe('session store', () => {
  it('reopens a turn whose end came too early, without counting its end twice', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'gemini-cli',
      () => 's1',
      'gemini-cli',
      () => {},
    );
    const turns = () =>
      [...store.counters.values()].filter((c) => c.metric === 'turns').map((c) => [c.labels.outcome, c.value]);
    ev.turnReopened(); // no turn yet: nothing to reopen
    expect(store.sessions.get('gemini-cli/s1')!.turnStartedAt).toBeUndefined();
    ev.turnStarted(1000);
    ev.turnEnded('completed', 2000);
    ev.turnReopened();
    ev.turnReopened(); // already open: no change
    expect(store.sessions.get('gemini-cli/s1')!.turnStartedAt).toBe(1000);
    ev.turnEnded('completed', 3000);
    expect(turns()).toEqual([['completed', 1]]);
    expect(store.sessions.get('gemini-cli/s1')!.lastTurn).toEqual({
      outcome: 'completed',
      endedAt: 3000,
      startedAt: 1000,
    });
    ev.turnStarted(4000); // the next turn counts again
    ev.turnEnded('completed', 5000);
    expect(turns()).toEqual([['completed', 2]]);
  });

  it('reopens only a turn that ended as the outcome named (a failed request retried after all)', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'pi',
      () => 's1',
      'pi',
      () => {},
    );
    const turns = () =>
      [...store.counters.values()].filter((c) => c.metric === 'turns').map((c) => [c.labels.outcome, c.value]);
    const session = () => store.sessions.get('pi/s1')!;
    ev.turnStarted(1000);
    ev.turnEnded('completed', 2000);
    ev.turnReopened('failed'); // it completed: an answer after it is none of its retries
    expect(session().turnStartedAt).toBeUndefined();
    ev.turnStarted(3000);
    ev.turnEnded('failed', 4000);
    ev.turnReopened('failed');
    expect(session().turnStartedAt).toBe(3000);
    ev.turnEnded('completed', 5000);
    expect(turns()).toEqual([
      ['completed', 1],
      ['failed', 1],
    ]);
    expect(session().lastTurn).toEqual({ outcome: 'completed', endedAt: 5000, startedAt: 3000 });
  });
});

describe('a turn that starts while one is open', () => {
  const setup = () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'droid',
      () => 's1',
      'droid',
      () => {},
    );
    const turns = () =>
      [...store.counters.values()].filter((c) => c.metric === 'turns').map((c) => [c.labels.outcome, c.value]);
    const session = () => store.sessions.get('droid/s1')!;
    return { store, ev, turns, session };
  };

  it('ends the open turn first, once, as the outcome given, and opens the new one at its start', () => {
    const { ev, turns, session } = setup();
    ev.turnStarted(1000);
    ev.toolCall('t1', { tool: 'Execute', kind: 'execute' });
    ev.turnStarted(2000, 'interrupted');
    expect(turns()).toEqual([['interrupted', 1]]);
    expect(session().lastTurn).toEqual({ outcome: 'interrupted', endedAt: 2000, startedAt: 1000 });
    expect(session().turnStartedAt).toBe(2000);
    expect(session().pendingTools.size).toBe(0); // the cut-short turn's calls wait no more
    ev.turnEnded('completed', 3000);
    expect(turns()).toEqual([
      ['interrupted', 1],
      ['completed', 1],
    ]);
    expect(session().lastTurn).toEqual({ outcome: 'completed', endedAt: 3000, startedAt: 2000 });
  });

  it('ends nothing when no turn is open', () => {
    const { ev, turns, session } = setup();
    ev.turnStarted(1000, 'failed');
    expect(turns()).toEqual([]);
    expect(session().lastTurn).toBeUndefined();
    expect(session().turnStartedAt).toBe(1000);
    ev.turnEnded('completed', 2000);
    ev.turnStarted(3000, 'failed'); // the last turn ended already: it stays as it ended
    expect(turns()).toEqual([['completed', 1]]);
    expect(session().lastTurn).toEqual({ outcome: 'completed', endedAt: 2000, startedAt: 1000 });
    expect(session().turnStartedAt).toBe(3000);
  });

  it('without an outcome lets the open turn go on (a prompt queued while the agent works)', () => {
    const { ev, turns, session } = setup();
    ev.turnStarted(1000);
    ev.turnStarted(2000);
    expect(turns()).toEqual([]);
    expect(session().turnStartedAt).toBe(1000);
  });

  it('does not count again the end of a reopened turn it ends', () => {
    const { ev, turns, session } = setup();
    ev.turnStarted(1000);
    ev.turnEnded('failed', 2000);
    ev.turnReopened();
    ev.turnStarted(3000, 'interrupted');
    expect(turns()).toEqual([['failed', 1]]);
    expect(session().lastTurn).toEqual({ outcome: 'interrupted', endedAt: 3000, startedAt: 1000 });
    ev.turnEnded('completed', 4000); // the new turn counts
    expect(turns()).toEqual([
      ['failed', 1],
      ['completed', 1],
    ]);
  });

  it('counts nothing in a muted replay, while the session still moves on', () => {
    const { ev, turns, session } = setup();
    ev.beginLine(false);
    ev.turnStarted(1000);
    ev.beginLine(true);
    ev.turnStarted(2000, 'interrupted');
    expect(turns()).toEqual([]);
    expect(session().lastTurn).toEqual({ outcome: 'interrupted', endedAt: 2000, startedAt: 1000 });
    expect(session().turnStartedAt).toBe(2000);
  });
});

describe('tool calls', () => {
  it('reported again while pending change what they wait on and count once (goose asks for approval after the call)', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'goose',
      () => 's1',
      'goose',
      () => {},
    );
    const calls = () => [...store.counters.values()].filter((c) => c.metric === 'toolCalls').map((c) => c.value);
    ev.toolCall('t1', { tool: 'developer__shell', kind: 'execute' });
    ev.toolCall('t1', { tool: 'developer__shell', kind: 'execute', waits: 'approval' });
    expect(calls()).toEqual([1]);
    expect(store.sessions.get('goose/s1')!.pendingTools.get('t1')!.waits).toBe('approval');
    ev.toolResult('t1', false);
    ev.toolCall('t1', { tool: 'developer__shell', kind: 'execute' }); // no longer pending: a call again
    expect(calls()).toEqual([2]);
  });
});

describe('reasoning series', () => {
  it('do not exist for a harness that records no output (Crush: reasoning is a part of output)', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
    sinkOf(
      store,
      'crush',
      () => 's1',
      'crush',
      () => {},
      ['input', 'output', 'cache_read', 'cache_write'],
    ).usage('claude-sonnet-4-5', usage, 0, 0, 0.01);
    sinkOf(
      store,
      'hermes',
      () => 's1',
      'hermes',
      () => {},
    ).usage('claude-sonnet-4-5', usage, 0, 0, 0.01);
    expect(
      [...store.counters.values()].filter((c) => c.metric === 'reasoningTokens').map((c) => c.labels.harness),
    ).toEqual(['hermes']);
    expect(
      [...store.counters.values()].filter((c) => c.metric === 'cost').map((c) => [c.labels.harness, c.value]),
    ).toEqual([
      ['crush', 0.01],
      ['hermes', 0.01],
    ]);
  });

  it('do not exist for a harness that records output but not its reasoning part (Aider, goose, Kodelet, pi)', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
    for (const harness of ['aider', 'goose', 'kodelet', 'pi', 'hermes'] as const) {
      sinkOf(
        store,
        harness,
        () => 's1',
        harness,
        () => {},
        READERS[harness].unrecorded,
      ).usage('claude-sonnet-4-5', usage, 10, 0);
    }
    expect(
      [...store.counters.values()].filter((c) => c.metric === 'reasoningTokens').map((c) => c.labels.harness),
    ).toEqual(['hermes']);
    expect(
      new Set(
        [...store.counters.values()]
          .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'output')
          .map((c) => c.labels.harness),
      ).size,
    ).toBe(5);
  });
});

describe('token series', () => {
  const usage = (input: number, output: number) => ({
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: 0,
  });
  const series = (store: SessionStore) =>
    [...store.counters.values()]
      .filter((c) => c.metric === 'tokens')
      .map((c) => `${c.labels.token_type}=${c.value}`)
      .sort();

  it('exist for every type a harness records, at 0 too, and not for a type it never records', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    sinkOf(
      store,
      'qwen-code',
      () => 's1',
      'qwen-code',
      () => {},
      ['cache_write'],
    ).usage('m', usage(5, 1), 5, 0);
    expect(series(store)).toEqual(['cache_read=0', 'input=5', 'output=1']);
  });

  it('wait for a record that says a type when the records so far do not (no 0 that is a guess)', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'copilot-cli',
      () => 's1',
      'copilot-cli',
      () => {},
    );
    ev.usage('m', usage(0, 12), 0, 0, undefined, ['input', 'cache_read', 'cache_write']);
    expect(series(store)).toEqual(['output=12']);
    ev.usage('m', usage(95, 3), 95, 0);
    expect(series(store)).toEqual(['cache_read=0', 'cache_write=0', 'input=95', 'output=15']);
  });
});

describe('series identity', () => {
  it('does not depend on the order the labels were written in', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    store.add('prompts', { project: 'app', harness: 'codex' }, 1);
    store.add('prompts', { harness: 'codex', project: 'app' }, 2);
    expect([...store.counters.values()].map((c) => [c.labels, c.value])).toEqual([
      [{ harness: 'codex', project: 'app' }, 3],
    ]);
  });
});

describe('usage-limit windows', () => {
  it('are a bounded set: Codex\'s 300 and 10080 minutes are 5h and 7d, any other window (or quota name) is "other"', async () => {
    const stateDir = tempDir();
    const db = new StateDb(stateDir);
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const root = tempDir();
    const day = join(root, 'sessions', '2026', '11', '30');
    mkdirSync(day, { recursive: true });
    const line = (o: object) => `${JSON.stringify({ timestamp: '2026-11-30T10:00:00Z', ...o })}\n`;
    const limits = (primary: number, secondary: number) =>
      line({
        type: 'event_msg',
        payload: {
          type: 'token_count',
          rate_limits: {
            primary: { used_percent: 10, window_minutes: primary },
            secondary: { used_percent: 20, window_minutes: secondary },
          },
        },
      });
    writeFileSync(
      join(day, 'rollout-2026-11-30T10-00-00-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl'),
      line({ type: 'session_meta', payload: { id: 'x', cwd: '/src/app' } }) +
        limits(300, 10080) +
        Array.from({ length: 1000 }, (_, i) => limits(1 + 2 * i, 2 + 2 * i)).join(''),
    );
    await new Collector('codex', codex, [root], store, db, createLogger('error')).scan();
    const ev = sinkOf(
      store,
      'copilot-cli',
      () => 's1',
      'copilot-cli',
      () => {},
    );
    for (let i = 0; i < 1000; i++) ev.usageLimit(`quota-${i}`, 0.5, undefined);
    ev.usageLimit('premium_interactions', 0.25, undefined);
    const windows = () => [...store.usageLimits.values()].map((l) => `${l.harness}/${l.window}`).sort();
    expect(windows()).toEqual([
      'codex/5h',
      'codex/7d',
      'codex/other',
      'copilot-cli/other',
      'copilot-cli/premium_interactions',
    ]);
    // Windows an older version kept are not exported again.
    db.commit({
      files: [],
      removedFiles: [],
      sessions: [],
      counters: [],
      seen: [],
      kv: [{ key: 'limit:codex/3m', value: JSON.stringify({ harness: 'codex', window: '3m', usedRatio: 0.1 }) }],
    });
    store.commit();
    db.close();
    const again = new SessionStore(new StateDb(stateDir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    expect([...again.usageLimits.values()].map((l) => `${l.harness}/${l.window}`).sort()).toEqual(windows());
  });
});

describe('a change of project.mode', () => {
  it('keeps the label of what was counted (no counter moves back or splits), gives the new one to sessions first seen after it, and says it changed', () => {
    const stateDir = tempDir();
    const app = tempDir();
    const open = (mode: 'name' | 'hash') => {
      const db = new StateDb(stateDir);
      return { db, store: new SessionStore(db, createPriceTable(), { mode, aliases: {}, max: 50 }) };
    };
    const prompt = (store: SessionStore, session: string) => {
      const ev = sinkOf(
        store,
        'codex',
        () => session,
        'codex',
        () => {},
      );
      ev.beginLine(false);
      ev.meta({ cwd: app });
      ev.prompt(1000);
    };
    const prompts = (store: SessionStore) =>
      Object.fromEntries(
        [...store.counters.values()].filter((c) => c.metric === 'prompts').map((c) => [c.labels.project, c.value]),
      );
    const hashed = createHash('sha256').update(app).digest('hex').slice(0, 12);

    const first = open('name');
    prompt(first.store, 's1');
    first.store.commit();
    expect(first.store.projectNamingWas).toBeUndefined();
    first.db.close();

    const second = open('hash');
    expect(JSON.parse(second.store.projectNamingWas!)).toEqual({ mode: 'name', aliases: {} });
    // The session counted under `name` counts on there; a new one in the same folder takes the hash.
    prompt(second.store, 's1');
    prompt(second.store, 's2');
    expect(prompts(second.store)).toEqual({ [basename(app)]: 2, [hashed]: 1 });
    second.store.commit();
    second.db.close();

    // Told once: the naming of now is what the state database holds from then on.
    const third = open('hash');
    expect(third.store.projectNamingWas).toBeUndefined();
    expect(prompts(third.store)).toEqual({ [basename(app)]: 2, [hashed]: 1 });
    third.db.close();
  });
});
