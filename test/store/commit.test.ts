// What is served is what is committed: a restart resumes from the last commit, so a counter
// served above it would be served lower after a kill -9 (read by Prometheus as a reset, and the
// total counted again). Counters and the request histograms move on what is served at a commit.

import { describe, expect, it } from 'vitest';
import { catalog, type MetricKey } from '../../src/catalog.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { StateDb } from '../../src/state/db.js';
import { dedupeKey, SessionStore } from '../../src/store/store.js';
import { tempDir } from '../helpers/run.js';
import { ledgerOnlyStore } from '../helpers/events.js';

const OPTIONS = {
  perSessionMax: 0,
  version: 't',
  activeWindowMs: 86_400_000,
  status: { doneForMs: 1_800_000, staleAfterMs: 7_200_000 },
};
const open = (dir: string) =>
  new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
const served = (store: SessionStore, metric: MetricKey) =>
  snapshot(store, new Map(), OPTIONS)
    .find((f) => f.def === catalog[metric])
    ?.points.reduce((a, p) => a + p.value, 0);
const prompts = 'prompts';

describe('the store serves what is committed', () => {
  it('serves a counter at its committed value, and a new series only once committed', () => {
    const dir = tempDir();
    const store = open(dir);
    store.add('prompts', { harness: 'codex', project: 'p' }, 2);
    expect(served(store, prompts)).toBeUndefined();
    store.commit();
    expect(served(store, prompts)).toBe(2);

    store.add('prompts', { harness: 'codex', project: 'p' }, 3);
    expect(served(store, prompts)).toBe(2);
    // Killed here: a restart serves the commit, which is what was served.
    const restarted = open(dir);
    expect(served(restarted, prompts)).toBe(2);
    store.commit();
    expect(served(store, prompts)).toBe(5);
  });

  it('serves the request histograms as committed, and adds to the one committed after a restart', () => {
    const dir = tempDir();
    const store = open(dir);
    const gpt5 = store.requestTokensOf('codex', 'gpt-5', 'input');
    store.observeRequest(gpt5, 100);
    expect([...store.committedRequestTokens.values()]).toEqual([]);
    store.commit();
    store.observeRequest(gpt5, 100);
    expect([...store.committedRequestTokens.values()].map((h) => h.sum)).toEqual([100]);
    store.commit();
    expect([...store.committedRequestTokens.values()].map((h) => h.sum)).toEqual([200]);

    const restarted = open(dir);
    restarted.observeRequest(restarted.requestTokensOf('codex', 'gpt-5', 'input'), 50);
    restarted.commit();
    expect([...restarted.committedRequestTokens.values()].map((h) => h.sum)).toEqual([250]);
    expect(new StateDb(dir).kv().filter((r) => r.key.startsWith('reqtok:'))).toHaveLength(1);
  });

  it("keeps a session's pending calls across a restart: an object by call id in the database, back in the order they were made", () => {
    const dir = tempDir();
    const store = open(dir);
    const s = store.sessionFor('codex', 'a', false);
    s.pendingTools.set('call_b', { tool: 'shell', kind: 'execute', startedAt: 1 });
    s.pendingTools.set('call_a', { tool: 'apply_patch', kind: 'edit', waits: 'approval' });
    store.changed(s);
    store.commit();
    const row = new StateDb(dir).sessions().find((r) => r.key === 'codex/a')!;
    expect(JSON.parse(row.data).pendingTools).toEqual({
      call_b: { tool: 'shell', kind: 'execute', startedAt: 1 },
      call_a: { tool: 'apply_patch', kind: 'edit', waits: 'approval' },
    });
    const back = open(dir).sessions.get('codex/a')!.pendingTools;
    expect([...back.keys()]).toEqual(['call_b', 'call_a']);
    expect(back.get('call_a')!.waits).toBe('approval');
  });

  it('commits a session each time it changed since the last commit, also one renamed', () => {
    const dir = tempDir();
    const store = open(dir);
    const s = store.sessionFor('codex', 'a', false);
    const stored = (key: string) => open(dir).sessions.get(key);
    s.costUsd = 1;
    store.changed(s);
    store.commit();
    s.costUsd = 2;
    store.changed(s);
    store.commit();
    expect(stored('codex/a')?.costUsd).toBe(2);
    store.renameSessions('codex', (id) => (id === 'a' ? 'b' : undefined));
    s.costUsd = 3;
    store.changed(s);
    store.commit();
    expect(stored('codex/a')).toBeUndefined();
    expect(stored('codex/b')?.costUsd).toBe(3);
  });

  it('commits what changed outside a read (a turn a process scan ended), and nothing when nothing did', () => {
    const dir = tempDir();
    const store = open(dir);
    store.commitIfChanged();
    store.add('turns', { harness: 'codex', project: 'p', outcome: 'interrupted' }, 1);
    store.commitIfChanged();
    expect(served(store, 'turns')).toBe(1);
    expect(served(open(dir), 'turns')).toBe(1);
  });

  it('tells its one change signal after every commit, and when told of a change outside one; never while a change waits uncommitted', () => {
    const store = open(tempDir());
    let told = 0;
    const seen: (number | undefined)[] = [];
    store.onChange(() => {
      told++;
      seen.push(served(store, prompts));
    });
    store.add('prompts', { harness: 'codex', project: 'p' }, 2);
    expect(told).toBe(0);
    expect(store.commitIfChanged()).toBe(true);
    expect(store.commitIfChanged()).toBe(false);
    // A process view that changed, a hook event: served as they are, no commit needed.
    store.touch();
    // What a listener sees is what was committed at once.
    expect(seen).toEqual([2, 2]);
  });
});

describe("a report's own read (ledgerOnly)", () => {
  it('commits the ledger alone, and keeps deduplicating by the keys it never writes', () => {
    const db = new StateDb(':memory:');
    const store = ledgerOnlyStore(db);
    const s = store.sessionFor('codex', 'a', false);
    s.costUsd = 1;
    store.changed(s);
    store.add('prompts', { harness: 'codex', project: 'p' }, 2);
    store.markSeen('codex\0k');
    store.stageFile({ path: '/f', collector: 'codex', ino: 1, size: 10, mtimeMs: 1, offset: 10, state: '{}' }, 10);
    store.ledger.turn(Date.UTC(2026, 0, 1, 10), 'codex', 'p', 'gpt-5', 'completed');
    store.commit();

    expect(db.ledger().map((r) => r.turnsCompleted)).toEqual([1]);
    expect([db.files('codex'), db.sessions(), db.counters(), db.seen('codex\0k')]).toEqual([[], [], [], false]);
    expect(store.seen(dedupeKey('codex', 'k'))).toBe(true);
    expect(store.sessions.get('codex/a')?.costUsd).toBe(1);
  });

  it('sums the ledger in memory until its one commit at the end of the read, wherever a second or 32 MB fell', () => {
    const db = new StateDb(':memory:');
    const store = new SessionStore(
      db,
      createPriceTable(),
      { mode: 'name', aliases: {}, max: 50 },
      undefined,
      undefined,
      true,
    );
    store.ledger.turn(Date.UTC(2026, 0, 1, 10), 'codex', 'p', 'gpt-5', 'completed');
    store.stageFile(
      { path: '/f', collector: 'codex', ino: 1, size: 64 << 20, mtimeMs: 1, offset: 64 << 20, state: '{}' },
      64 << 20,
    );
    store.commitIfDue();
    expect(db.ledger()).toEqual([]);
    store.commit();
    expect(db.ledger().map((r) => r.turnsCompleted)).toEqual([1]);
  });
});
