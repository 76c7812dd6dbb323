import { describe, expect, it } from 'vitest';
import { createPriceTable } from '../../src/pricing/prices.js';
import { SessionStore } from '../../src/session/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';

describe('session store', () => {
  it('reopens a turn whose end came too early, without counting its end twice', () => {
    const store = new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = store.events('gemini-cli', () => 's1', 'gemini-cli', () => {});
    const turns = () => [...store.counters.values()].filter((c) => c.metric === 'turns').map((c) => [c.labels.outcome, c.value]);
    ev.turnReopened(); // no turn yet: nothing to reopen
    expect(store.sessions.get('gemini-cli/s1')!.turnStartedAt).toBeUndefined();
    ev.turnStarted(1000);
    ev.turnEnded('completed', 2000);
    ev.turnReopened();
    ev.turnReopened(); // already open: no change
    expect(store.sessions.get('gemini-cli/s1')!.turnStartedAt).toBe(1000);
    ev.turnEnded('completed', 3000);
    expect(turns()).toEqual([['completed', 1]]);
    expect(store.sessions.get('gemini-cli/s1')!.lastTurn).toEqual({ outcome: 'completed', endedAt: 3000, startedAt: 1000 });
    ev.turnStarted(4000); // the next turn counts again
    ev.turnEnded('completed', 5000);
    expect(turns()).toEqual([['completed', 2]]);
  });
});
