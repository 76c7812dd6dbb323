// Reading a backlog on read threads: a file's events written down where it is read and played
// back on the main thread must be exactly what reading it there would have reported, whichever
// thread read which file, and a thread that dies must cost nothing but time.

import { cpSync, mkdirSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ensureCorpus } from '../../bench/corpus.js';
import { Collector } from '../../src/collectors/collector.js';
import { Claims } from '../../src/collectors/claims.js';
import { answersHold, EventLog, play, type Log } from '../../src/collectors/event-log.js';
import { ReadAhead } from '../../src/collectors/read-ahead.js';
import { ReadThreads, type Backlog } from '../../src/collectors/read-threads.js';
import { readWhole, type FileRead } from '../../src/collectors/read-whole.js';
import { READERS } from '../helpers/readers.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { readLines } from '../../src/readers/lines.js';
import type { LineReader } from '../../src/readers/reader.js';
import { dedupeKey, SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { capturesOf } from '../helpers/captures.js';
import { tempDir, until } from '../helpers/run.js';
import { ledgerOnlyStore, recorder, sinkOf } from '../helpers/events.js';

const quiet = createLogger('error');
const lineReaders = Object.entries(READERS).filter((e): e is [string, LineReader<unknown>] => e[1].kind === 'files');

describe('an event log played back', () => {
  const storeOf = () =>
    new SessionStore(new StateDb(tempDir()), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const contents = (store: SessionStore) => ({
    counters: Object.fromEntries([...store.counters.values()].map((c) => [c.key, c.value])),
    sessions: Object.fromEntries(store.sessions),
  });

  for (const [name, reader] of lineReaders) {
    for (const { home, files } of capturesOf(reader)) {
      it(`leaves the store as reading the files does: ${name} (${basename(home)})`, () => {
        const direct = storeOf();
        const played = storeOf();
        const keys = new Set<string>(); // one thread's
        for (const file of files.filter((f) => !f.document)) {
          const state = reader.initialState(file);
          const events = sinkOf(
            direct,
            reader.harness,
            () => reader.sessionOf?.(file, state) ?? file.sessionId,
            name,
            () => {},
            reader.unrecorded,
          );
          readLines(file.path, 0, (line) => {
            events.beginLine(false);
            reader.readLine(line, state, file, events);
          });

          // As it crosses from a thread.
          const read = deserialize(serialize(readWhole(reader, file, keys, false))) as FileRead;
          expect(answersHold(read.log, (k) => played.seen(dedupeKey(name, k)))).toBe(true);
          let session = file.sessionId;
          const sink = sinkOf(
            played,
            reader.harness,
            () => session,
            name,
            () => {},
            reader.unrecorded,
          );
          play(read.log, {
            events: sink,
            session: (id) => (session = id),
            line: () => sink.beginLine(false),
            readerError: () => {},
          });
          expect(JSON.parse(read.state)).toEqual(JSON.parse(JSON.stringify(state)));
        }
        expect(contents(played)).toEqual(contents(direct));
      });
    }
  }

  it("writes down none of the events no report sums for a report's read, and the store's sink of a report applies none", () => {
    const report = new EventLog(() => 's', new Set(), undefined, true);
    const server = new EventLog(() => 's', new Set());
    for (const log of [report, server]) {
      log.events.toolCall('t1', { tool: 'Read', kind: 'read' });
      log.events.context('m', 10);
      log.events.turnEnded('completed', 1);
    }
    expect(server.log.words.length).toBeGreaterThan(report.log.words.length);
    expect(report.log.strings.filter((e) => e === 't1' || e === 'm')).toEqual([]);
    expect(report.log.strings).toContain('completed');

    // A session's activity, however interleaved: its earliest and latest time, where it first shows.
    const activity = new EventLog(() => 's', new Set(), undefined, true);
    for (const ts of [5, 3, 9, 4]) {
      activity.events.activity(ts);
      activity.events.usage(
        'm',
        { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
        1,
        ts,
      );
    }
    const times: number[] = [];
    play(activity.log, {
      events: { ...recorder().events, activity: (ts: number) => void times.push(ts) },
      session: () => {},
      line: () => {},
      readerError: () => {},
    });
    expect(times).toEqual([3, 9]);

    const ledgerOnly = ledgerOnlyStore(new StateDb(tempDir()));
    const sink = sinkOf(
      ledgerOnly,
      'claude-code',
      () => 's',
      'claude-code',
      () => {},
    );
    sink.activity(1);
    sink.toolCall('t1', { tool: 'Read', kind: 'read' });
    expect([...ledgerOnly.sessions.values()][0]!.pendingTools.size).toBe(0);
  });

  it('gives back every value as it was reported, across threads, whatever the reader reports', () => {
    const log = new EventLog(() => 's', new Set());
    const usage = { input: 1, output: 2.5, cacheRead: 0, cacheWrite: 2 ** 40, cacheWrite1h: -0, reasoning: NaN };
    const damaged = { ...usage, cacheWrite1h: undefined as unknown as number };
    const calls: unknown[][] = [
      ['usage', 'm', usage, 3, 1_700_000_000_123, undefined, ['cache_write'], { at: 7, usage }],
      ['usage', 'm', damaged, 3, 4],
      ['usage', 'm', { ...usage, extra: 'x' }, 3, 4],
      ['meta', { cwd: '/src/ü 😀', gitBranch: '', model: 'm', hosted: true }],
      ['todos', { pending: 2, completed: 0 }],
      ['toolCall', 'id', { tool: 'Read', kind: 'read', waits: 'approval' }],
      ['usageLimit', '5h', 0.25, undefined],
      ['turnEnded', 'completed', -1.5, true],
      ['asks', null],
      ['activity', 'not a time'],
      ['activity', 3],
      ['activity', 5],
      ['activity', 9],
      ['skipped', 'parse_error'],
    ];
    const events = log.events as unknown as Record<string, (...a: unknown[]) => void>;
    for (const [name, ...args] of calls) events[name as string]!(...args);
    usage.input = 99; // changed after it was reported: the log holds what was reported
    const played = recorder();
    play(deserialize(serialize(log.log)) as Log, {
      events: played.events,
      session: () => {},
      line: () => {},
      readerError: () => {},
    });
    const reported = calls
      .slice(0, 10)
      .map(([name, ...args]) => [name, ...args.map((a) => (a === usage ? { ...usage, input: 1 } : a))]);
    reported[0]![7] = { at: 7, usage: { ...usage, input: 1 } };
    // A run of activity: its earliest and latest time.
    expect(played.log).toEqual([...reported, ['activity', 3], ['activity', 9], ['skipped', 'parse_error']]);
  });

  it('keeps a run of activity as its earliest and latest time, in whatever order they came', () => {
    for (const run of [
      [5, 3, 9],
      [5, 9, 3],
      [9, 3, 5, 1, 7],
      [2, 2, 2],
    ]) {
      const log = new EventLog(() => 's', new Set());
      for (const ts of run) log.events.activity(ts);
      const played = recorder();
      play(log.log, { events: played.events, session: () => {}, line: () => {}, readerError: () => {} });
      expect(played.log.map(([, ts]) => ts)).toEqual([Math.min(...run), Math.max(...run)]);
    }
  });

  it('is played back only while the store gives the answers it was given', () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const logOf = (...keys: string[]) => {
      const log = new EventLog(() => 's', new Set());
      for (const k of keys) log.events.firstTime(k);
      return log.log;
    };
    expect(answersHold(logOf('msg:a', 'msg:a', 'msg:b'), (k) => store.seen(dedupeKey('claude-code', k)))).toBe(true);
    sinkOf(
      store,
      'claude-code',
      () => 's',
      'claude-code',
      () => {},
    ).firstTime('msg:b');
    expect(answersHold(logOf('msg:a', 'msg:b'), (k) => store.seen(dedupeKey('claude-code', k)))).toBe(false);
    store.commit();
    expect(answersHold(logOf('msg:b'), (k) => store.seen(dedupeKey('claude-code', k)))).toBe(false);
    expect(answersHold(logOf('msg:c'), (k) => store.seen(dedupeKey('claude-code', k)))).toBe(true);
  });
});

describe('a backlog read on threads', () => {
  const corpus = ensureCorpus(join(tempDir(), 'corpus'), 5, 24).corpus;

  /** Claude Code's and Codex's collectors of `home`, into one new store, with `threads` for every backlog. */
  function corpusCollectors(home: string, threads: ReadThreads | undefined, mainReads: boolean, log = quiet) {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collectors = (['claude-code', 'codex'] as const).map(
      (h) =>
        new Collector(h, READERS[h], READERS[h].defaultRoots({}, home), store, db, log, false, {
          threads,
          minBytes: 0,
          mainReads,
        }),
    );
    return { store, collectors };
  }

  async function readCorpus(home: string, n: number, mainReads = true) {
    const threads = n > 0 ? new ReadThreads(n) : undefined;
    const { store, collectors } = corpusCollectors(home, threads, mainReads);
    for (const c of collectors) await c.scan();
    threads?.close();
    return { store, collectors };
  }
  const tokens = (store: SessionStore, harness: string) =>
    Object.fromEntries(
      ['input', 'output', 'cache_read', 'cache_write'].map((t) => [
        t,
        [...store.counters.values()]
          .filter((c) => c.metric === 'tokens' && c.labels.harness === harness && c.labels.token_type === t)
          .reduce((a, c) => a + c.value, 0),
      ]),
    );
  const counters = (store: SessionStore) =>
    Object.fromEntries([...store.counters.values()].map((c) => [c.key, c.value]));

  it('counts exactly what the main thread alone counts, also with transcripts repeated in other files', async () => {
    // Copies of some transcripts in another project, as a resumed session repeats its history:
    // each response counts once, whichever thread read which copy first.
    const home = tempDir();
    cpSync(corpus.home, home, { recursive: true });
    const projects = join(home, '.claude', 'projects');
    mkdirSync(join(projects, 'zz-copies'));
    for (const p of readdirSync(projects).filter((p) => p !== 'zz-copies')) {
      for (const f of readdirSync(join(projects, p)).filter((f) => f.endsWith('.jsonl')))
        cpSync(join(projects, p, f), join(projects, 'zz-copies', `copy-${f}`));
    }

    const alone = await readCorpus(home, 0);
    // Every file read on a thread; then the main thread reading beside them, as it does by default.
    for (const [threads, mainReads] of [
      [1, false],
      [3, false],
      [1, true],
    ] as const) {
      const ahead = await readCorpus(home, threads, mainReads);
      expect(tokens(ahead.store, 'claude-code')).toEqual(corpus.expected['claude-code']);
      expect(tokens(ahead.store, 'codex')).toEqual(corpus.expected.codex);
      expect(counters(ahead.store)).toEqual(counters(alone.store));
      expect(ahead.collectors.every((c) => c.stats.success)).toBe(true);
    }
  });

  it("reads the backlogs of collectors scanned together (a report's read) on the threads in turn, counting what one after the other counts", async () => {
    const alone = await readCorpus(corpus.home, 0);
    const threads = new ReadThreads(1);
    const logged: string[] = [];
    const log = createLogger('info', (l) => void logged.push(l));
    // The main thread reads none of them: each file is the thread's, the second backlog's too.
    const { store, collectors } = corpusCollectors(corpus.home, threads, false, log);
    await Promise.all(collectors.map((c) => c.scan()));
    threads.close();
    expect(logged.filter((l) => l.includes('reading a backlog on threads'))).toHaveLength(2);
    expect(counters(store)).toEqual(counters(alone.store));
    expect(collectors.every((c) => c.stats.success)).toBe(true);
  });

  // The thread holds a file open while it reads it (threads share the process's descriptors).
  async function fileBeingRead(paths: string[]): Promise<string | undefined> {
    const open = () =>
      readdirSync('/proc/self/fd').map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return '';
        }
      });
    for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 1))) {
      const reading = open().find((p) => paths.includes(p));
      if (reading) return reading;
    }
    return undefined;
  }

  it('counts exactly when its threads are killed while one reads a file', async () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const threads = new ReadThreads(2);
    const root = join(corpus.home, '.claude');
    const collector = new Collector('claude-code', claudeCode, [root], store, db, quiet, false, {
      threads,
      minBytes: 0,
      mainReads: false,
    });
    const scan = collector.scan();
    expect(await fileBeingRead(claudeCode.listFiles(root).map((f) => f.path))).toBeDefined();
    threads.close();
    await scan;
    expect(tokens(store, 'claude-code')).toEqual(corpus.expected['claude-code']);
    expect(collector.stats.success).toBe(true);
  });

  it('counts exactly when its threads are killed while collectors scanned together wait for them in turn', async () => {
    const alone = await readCorpus(corpus.home, 0);
    const threads = new ReadThreads(1);
    const { store, collectors } = corpusCollectors(corpus.home, threads, false);
    const scans = Promise.all(collectors.map((c) => c.scan()));
    // Killed while it reads the first backlog, the second still waiting for it: both are read here.
    expect(await fileBeingRead(claudeCode.listFiles(join(corpus.home, '.claude')).map((f) => f.path))).toBeDefined();
    threads.close();
    await scans;
    expect(counters(store)).toEqual(counters(alone.store));
    expect(collectors.every((c) => c.stats.success)).toBe(true);
  });

  it('has the main thread, while it waits for a thread, read ahead the next files nobody claimed', async () => {
    // A thread that claims the first file and posts nothing until it is told to end; the two files
    // after it hold the same response, so the one the main thread read first holds it as new: the
    // next one, though it is the larger.
    const dir = tempDir();
    const answer = JSON.stringify({
      type: 'assistant',
      timestamp: '2026-01-01T00:00:00.000Z',
      cwd: '/src/app',
      message: { id: 'msg_same', model: 'claude-sonnet-4-5', usage: { input_tokens: 1, output_tokens: 2 } },
    });
    const padding = JSON.stringify({
      type: 'user',
      timestamp: '2026-01-01T00:00:01.000Z',
      message: { content: 'x'.repeat(50_000) },
    });
    const files = [
      ['first', answer],
      ['large', `${answer}\n${padding}`],
      ['small', answer],
    ].map(([name, text]) => {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, `${text}\n`);
      return { path, sessionId: name!, stat: statSync(path) };
    });
    let backlog: Backlog | undefined;
    let claims: Claims | undefined;
    const thread = {
      claims: [2],
      read(task: { shared: SharedArrayBuffer }, b: Backlog) {
        claims = new Claims(task.shared, files.length);
        claims.claim(0, 2);
        backlog = b;
        return true;
      },
      release() {},
    } as unknown as ReadThreads;
    const ahead = ReadAhead.start(thread, claudeCode, files, false)!;
    const first = ahead.take(files[0]!.path);
    await until(
      async () => (claims!.owner(1) === Claims.MAIN && claims!.owner(2) === Claims.MAIN) || undefined,
      10_000,
      'the main thread claiming both files',
    );
    backlog!.ended(2, true);
    expect(await first).toBeUndefined(); // the thread's: read by the caller
    const large = (await ahead.take(files[1]!.path))!;
    const small = (await ahead.take(files[2]!.path))!;
    const unseen = () => false;
    expect([answersHold(large.log, unseen), answersHold(small.log, unseen)]).toEqual([true, false]);
  });

  it('reads on the main thread a file whose thread was killed while reading it', async () => {
    const files = claudeCode.listFiles(join(corpus.home, '.claude'));
    // The thread may finish the file it was seen reading before the kill lands (a busy machine):
    // tried again until a kill lands mid-file. Whatever the thread hands over is always whole.
    let killedMidFile = false;
    for (let attempt = 0; attempt < 10 && !killedMidFile; attempt++) {
      const threads = new ReadThreads(1);
      const ahead = ReadAhead.start(threads, claudeCode, files, false)!;
      const reading = await fileBeingRead(files.map((f) => f.path));
      expect(reading).toBeDefined();
      threads.close();
      for (const f of files) {
        const read = await ahead.take(f.path);
        if (read) expect(read.result.offset).toBe(read.result.bytesRead);
        else if (f.path === reading) killedMidFile = true;
      }
    }
    expect(killedMidFile).toBe(true);
  });
});
