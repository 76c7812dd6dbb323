// A file's history counts once, whatever happens to the file: a folder unreadable for a scan, a
// file moved away and back (the same file, or a copy), a file replaced by one with another
// beginning. The rollout and the event log are the real CLIs' (test/fixtures/captures); every
// registered reader of lines is held to the same from its captures.

import { copyFileSync, cpSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { RETAIN_GONE_MS } from '../../src/collectors/identity.js';
import { READERS } from '../helpers/readers.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { codex } from '../../src/readers/codex/reader.js';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import type { Reader } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { capturesOf } from '../helpers/captures.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const METRICS = [
  'tokens',
  'prompts',
  'turns',
  'toolCalls',
  'toolErrors',
  'linesAdded',
  'linesRemoved',
  'compactions',
  'sessionsStarted',
];

/** Each metric of `METRICS` summed over its series. */
function totalsOf(store: SessionStore): Record<string, number> {
  return Object.fromEntries(
    METRICS.map((m) => [
      m,
      [...store.counters.values()].filter((c) => c.metric === m).reduce((a, c) => a + c.value, 0),
    ]),
  );
}

/** A collector over a copy of a capture; `restart` opens the same state again, as a new process would. */
function setup(name: string, reader: Reader<unknown>, capture: string) {
  const root = tempDir();
  cpSync(join(FIXTURES, 'captures', capture), root, { recursive: true });
  const stateDir = tempDir();
  let db = new StateDb(stateDir);
  let store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const home = join(root, name === 'codex' ? '.codex' : '.copilot');
  let collector = new Collector(name, reader, [home], store, db, createLogger('error'));
  return {
    home,
    totals: () => totalsOf(store),
    scan: () => collector.scan(),
    restart() {
      store.commit();
      db.close();
      db = new StateDb(stateDir);
      store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
      collector = new Collector(name, reader, [home], store, db, createLogger('error'));
    },
    files: () => db.files(name),
  };
}

const ROLLOUT = 'sessions/2026/11/30/rollout-2026-11-30T02-16-12-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl';
const EVENTS = 'session-state/3c795f57-b9ef-4b14-9d76-5cb02fc6f9f0/events.jsonl';

afterEach(() => vi.restoreAllMocks());

describe('a Codex rollout that disappears and comes back counts once', () => {
  it('its folder unreadable for a scan (a file where the folder was), then restored, cycle after cycle and across a restart', async () => {
    const t = setup('codex', codex, 'codex/tool');
    await t.scan();
    const first = t.totals();
    expect(first.tokens).toBeGreaterThan(0);
    expect(first.toolCalls).toBeGreaterThan(0);
    const day = join(t.home, 'sessions/2026/11/30');
    for (let cycle = 0; cycle < 3; cycle++) {
      renameSync(day, `${day}.away`);
      writeFileSync(day, '');
      await t.scan();
      if (cycle === 1) t.restart();
      rmSync(day);
      renameSync(`${day}.away`, day);
      await t.scan();
      expect(t.totals()).toEqual(first);
    }
  });

  it('moved out of its folder and back, or copied back (another inode)', async () => {
    const t = setup('codex', codex, 'codex/tool');
    const path = join(t.home, ROLLOUT);
    const away = join(tempDir(), 'away.jsonl');
    await t.scan();
    const first = t.totals();
    renameSync(path, away);
    await t.scan();
    renameSync(away, path);
    await t.scan();
    expect(t.totals()).toEqual(first);
    copyFileSync(path, away);
    rmSync(path);
    await t.scan();
    t.restart();
    copyFileSync(away, path);
    await t.scan();
    expect(t.totals()).toEqual(first);
  });

  it('replaced by one with another first 4 KB', async () => {
    const t = setup('codex', codex, 'codex/tool');
    const path = join(t.home, ROLLOUT);
    await t.scan();
    const first = t.totals();
    const [meta, ...rest] = readFileSync(path, 'utf8').split('\n');
    const rec = JSON.parse(meta!) as { payload: Record<string, unknown> };
    rec.payload.originator = 'rewritten';
    rmSync(path);
    writeFileSync(path, [JSON.stringify(rec), ...rest].join('\n'));
    await t.scan();
    expect(t.totals()).toEqual(first);
  });

  it('replaced by one with another first line: a failed tool output counts one tool error', async () => {
    const t = setup('codex', codex, 'codex/tool');
    const path = join(t.home, ROLLOUT);
    const [meta, ...rest] = readFileSync(path, 'utf8').replace('exited with code 0', 'exited with code 1').split('\n');
    writeFileSync(path, [meta, ...rest].join('\n'));
    await t.scan();
    const first = t.totals();
    expect(first.toolErrors).toBe(1);
    const rec = JSON.parse(meta!) as { payload: Record<string, unknown> };
    rec.payload.originator = 'rewritten';
    rmSync(path);
    writeFileSync(path, [JSON.stringify(rec), ...rest].join('\n'));
    await t.scan();
    expect(t.totals()).toEqual(first);
  });

  it('is forgotten once gone longer than it is kept', async () => {
    const t = setup('codex', codex, 'codex/tool');
    await t.scan();
    rmSync(join(t.home, ROLLOUT));
    await t.scan();
    expect(t.files()).toHaveLength(1);
    expect(t.files()[0]!.goneMs).toBeGreaterThan(0);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + RETAIN_GONE_MS + 1000);
    await t.scan();
    expect(t.files()).toHaveLength(0);
  });
});

describe('a Copilot CLI event log read again from its start counts once', () => {
  it('replaced by one with another first 4 KB: tool calls, prompts, turns and tokens alike', async () => {
    const t = setup('copilot-cli', copilotCli, 'copilot-cli/tool');
    const path = join(t.home, EVENTS);
    await t.scan();
    const first = t.totals();
    expect(first.toolCalls).toBeGreaterThan(0);
    const [start, ...rest] = readFileSync(path, 'utf8').split('\n');
    rmSync(path);
    writeFileSync(path, [start!.replace('"producer":"copilot-agent"', '"producer":"rewritten"'), ...rest].join('\n'));
    await t.scan();
    expect(t.totals()).toEqual(first);
    // Moved out and back after a restart.
    const away = join(tempDir(), 'events.jsonl');
    renameSync(path, away);
    await t.scan();
    t.restart();
    renameSync(away, path);
    await t.scan();
    expect(t.totals()).toEqual(first);
  });
});

describe.each(Object.entries(READERS).filter(([, r]) => r.kind === 'files'))(
  'every %s session file read again from its start counts once',
  (harness, reader) => {
    it('replaced by one with another first line, and moved away and back across a restart', async () => {
      for (const capture of capturesOf(reader)) {
        const home = tempDir();
        cpSync(capture.home, home, { recursive: true });
        const stateDir = tempDir();
        const open = () => {
          const db = new StateDb(stateDir);
          const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
          const collector = new Collector(
            harness,
            reader,
            reader.defaultRoots({}, home),
            store,
            db,
            createLogger('error'),
          );
          return { db, store, collector, totals: () => totalsOf(store) };
        };
        let t = open();
        await t.collector.scan();
        const first = t.totals();
        const files = reader
          .defaultRoots({}, home)
          .flatMap((r) => reader.listFiles(r))
          .filter((f) => !f.document && !f.store);
        for (const f of files) {
          const [head, ...rest] = readFileSync(f.path, 'utf8').split('\n');
          const rec = JSON.parse(head!) as Record<string, unknown>;
          rmSync(f.path);
          writeFileSync(f.path, [JSON.stringify({ ...rec, rewritten: true }), ...rest].join('\n'));
        }
        await t.collector.scan();
        expect(t.totals(), capture.home).toEqual(first);
        const away = tempDir();
        files.forEach((f, i) => renameSync(f.path, join(away, String(i))));
        await t.collector.scan();
        t.store.commit();
        t.db.close();
        t = open();
        files.forEach((f, i) => renameSync(join(away, String(i)), f.path));
        await t.collector.scan();
        expect(t.totals(), capture.home).toEqual(first);
      }
    });
  },
);
