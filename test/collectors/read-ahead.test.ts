// Reading a backlog on read threads: a file's events written down where it is read and played
// back on the main thread must be exactly what reading it there would have reported, whichever
// thread read which file, and a thread that dies must cost nothing but time.

import { cpSync, mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureCorpus } from '../../src/bench/corpus.js';
import { Collector } from '../../src/collectors/collector.js';
import { answersHold, EventLog, play } from '../../src/collectors/event-log.js';
import { ReadAhead } from '../../src/collectors/read-ahead.js';
import { readWhole } from '../../src/collectors/read-whole.js';
import { READERS } from '../../src/collectors/registry.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { readLines } from '../../src/readers/lines.js';
import type { LineReader } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/session/store.js';
import { StateDb } from '../../src/state/db.js';
import { capturesOf } from '../helpers/captures.js';
import { recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const quiet = createLogger('error');
const lineReaders = Object.entries(READERS).filter((e): e is [string, LineReader<unknown>] => !('readStore' in e[1]));

describe('an event log played back', () => {
  for (const [name, reader] of lineReaders) {
    for (const { home, files } of capturesOf(reader)) {
      it(`reports what reading the file reports: ${name} (${basename(home)})`, () => {
        for (const file of files.filter((f) => !f.document)) {
          const direct = recorder();
          const state = reader.initialState(file);
          readLines(file.path, 0, (line) => reader.readLine(line, state, file, direct.events));

          const played = recorder();
          const read = readWhole(reader, file, new Set());
          play(read.log, {
            events: played.events,
            session: (id) => played.log.push(['session', id]),
            line: () => {},
            readerError: (at, error) => played.log.push(['readerError', at, error]),
          });
          expect(played.log.filter((e) => e[0] !== 'session')).toEqual(direct.log);
          expect(JSON.parse(read.state)).toEqual(JSON.parse(JSON.stringify(state)));
          // Events go to the session the reader names for the file (a Codex subagent's names its parent).
          const sessions = played.log.filter((e) => e[0] === 'session').map((e) => e[1]);
          if (sessions.length > 0) expect(sessions.at(-1)).toBe(reader.sessionOf?.(file, state) ?? file.sessionId);
        }
      });
    }
  }

  it('is played back only while the store gives the answers it was given', () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const logOf = (...keys: string[]) => {
      const log = new EventLog(() => 's', new Set());
      for (const k of keys) log.events.firstTime(k);
      return log.log;
    };
    expect(answersHold(logOf('msg:a', 'msg:a', 'msg:b'), (k) => store.seen('claude-code', k))).toBe(true);
    store.events('claude-code', () => 's', 'claude-code', () => {}).firstTime('msg:b');
    expect(answersHold(logOf('msg:a', 'msg:b'), (k) => store.seen('claude-code', k))).toBe(false);
    store.commit();
    expect(answersHold(logOf('msg:b'), (k) => store.seen('claude-code', k))).toBe(false);
    expect(answersHold(logOf('msg:c'), (k) => store.seen('claude-code', k))).toBe(true);
  });
});

describe('a backlog read on threads', () => {
  const corpus = ensureCorpus(join(tempDir(), 'corpus'), 5, 24).corpus;

  function readCorpus(home: string, threads: number, mainReads = true) {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collectors = (['claude-code', 'codex'] as const).map((h) =>
      new Collector(h, READERS[h]!, READERS[h]!.defaultRoots({}, home), store, db, quiet, false, { threads, minBytes: 0, mainReads }));
    return { store, collectors };
  }
  const tokens = (store: SessionStore, harness: string) => Object.fromEntries(['input', 'output', 'cache_read', 'cache_write'].map((t) => [t,
    [...store.counters.values()].filter((c) => c.metric === 'tokens' && c.labels.harness === harness && c.labels.token_type === t).reduce((a, c) => a + c.value, 0)]));
  const counters = (store: SessionStore) => Object.fromEntries([...store.counters.values()].map((c) => [c.key, c.value]));

  it('counts exactly what the main thread alone counts, also with transcripts repeated in other files', async () => {
    // Copies of some transcripts in another project, as a resumed session repeats its history:
    // each response counts once, whichever thread read which copy first.
    const home = tempDir();
    cpSync(corpus.home, home, { recursive: true });
    const projects = join(home, '.claude', 'projects');
    mkdirSync(join(projects, 'zz-copies'));
    for (const p of readdirSync(projects).filter((p) => p !== 'zz-copies')) {
      for (const f of readdirSync(join(projects, p)).filter((f) => f.endsWith('.jsonl'))) cpSync(join(projects, p, f), join(projects, 'zz-copies', `copy-${f}`));
    }

    const alone = readCorpus(home, 0);
    for (const c of alone.collectors) await c.scan();
    // Every file read on a thread; then the main thread reading beside them, as it does by default.
    for (const [threads, mainReads] of [[1, false], [3, false], [1, true]] as const) {
      const ahead = readCorpus(home, threads, mainReads);
      for (const c of ahead.collectors) await c.scan();
      expect(tokens(ahead.store, 'claude-code')).toEqual(corpus.expected['claude-code']);
      expect(tokens(ahead.store, 'codex')).toEqual(corpus.expected.codex);
      expect(counters(ahead.store)).toEqual(counters(alone.store));
      expect(ahead.collectors.every((c) => c.stats.success)).toBe(true);
    }
  });

  it('reads on the main thread a file whose thread was killed while reading it', async () => {
    const files = claudeCode.listFiles(join(corpus.home, '.claude'));
    const ahead = new ReadAhead(1, claudeCode, files);
    // The thread holds a file open while it reads it (threads share the process's descriptors).
    const open = () => readdirSync('/proc/self/fd').map((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; } });
    let reading: string | undefined;
    for (const end = Date.now() + 20_000; !reading && Date.now() < end; await new Promise((r) => setTimeout(r, 1))) {
      reading = open().find((p) => files.some((f) => f.path === p));
    }
    expect(reading).toBeDefined();
    ahead.close();
    expect(await ahead.take(reading!)).toBeUndefined();
    // Every other file is the caller's too, or was read whole before the thread died.
    for (const f of files.filter((f) => f.path !== reading)) {
      const read = await ahead.take(f.path);
      if (read) expect(read.result.offset).toBe(read.result.bytesRead);
    }
  });
});
