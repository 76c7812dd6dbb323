// A fixture HOME read through a real collector and store, with every counter's growth credited to
// the session whose event made it: how ground-truth tests check each session on its own.

import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import type { Reader } from '../../src/readers/reader.js';
import { SessionStore, type Counter, type StoredSession } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from './run.js';

/**
 * Counter growth by session: every increment credited to the session whose event made it (a sink
 * marks its session changed before each event moves a counter).
 */
export class TallyStore extends SessionStore {
  readonly bySession = new Map<string, Map<string, number>>();
  private current?: Map<string, number>;

  override changed(s: StoredSession): void {
    super.changed(s);
    const key = `${s.harness}/${s.id}`;
    this.current = this.bySession.get(key) ?? new Map<string, number>();
    this.bySession.set(key, this.current);
  }

  override bump(c: Counter, delta: number): boolean {
    const moved = super.bump(c, delta);
    const tally = this.current;
    if (moved && tally) {
      const add = (k: string) => tally.set(k, (tally.get(k) ?? 0) + delta);
      add(c.metric === 'turns' ? `turns:${c.labels.outcome}` : c.metric);
      if (c.metric === 'toolCalls' && c.labels.kind === 'agent') add('subagents');
    }
    return moved;
  }
}

/** One scan of `roots` by `reader`, into a fresh tallying store. */
export async function readHome(reader: Reader<unknown>, ...roots: string[]) {
  const db = new StateDb(tempDir());
  const store = new TallyStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector(reader.harness, reader, roots, store, db, createLogger('error'));
  await collector.scan();
  return { store, collector, db };
}
