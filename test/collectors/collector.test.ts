// Incremental reading against a real state database: what a long-running exporter sees when
// harnesses append, rewrite and delete files, and when it restarts.

import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { HARNESSES } from '../../src/collectors/registry.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { aider, type AiderState } from '../../src/readers/aider/reader.js';
import { amp } from '../../src/readers/amp/reader.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { opencode } from '../../src/readers/opencode/reader.js';
import { obj } from '../../src/readers/fields.js';
import { fileStat } from '../../src/files/dir.js';
import { parseJson } from '../../src/readers/lines.js';
import { liveSessions } from '../../src/store/live.js';
import type { LineReader, Reader } from '../../src/readers/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { ZERO_USAGE } from '../../src/session/types.js';
import { StateDb } from '../../src/state/db.js';
import { OpenCodeDb, tokens } from '../helpers/opencode-db.js';
import { tempDir } from '../helpers/run.js';

const quiet = createLogger('error');
const ts = (s: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();
const answer = (id: string, input: number, s = 1) =>
  `${JSON.stringify({ type: 'assistant', timestamp: ts(s), cwd: '/src/app', message: { id, model: 'claude-sonnet-4-5', content: [], stop_reason: 'end_turn', usage: { input_tokens: input, output_tokens: 1 } } })}\n`;
const prompt = (uuid: string, s = 0) =>
  `${JSON.stringify({ type: 'user', uuid, timestamp: ts(s), cwd: '/src/app', message: { content: 'go' } })}\n`;

function setup(stateDir = tempDir(), root = tempDir(), reader: Reader<unknown> = claudeCode) {
  const db = new StateDb(stateDir);
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector('claude-code', reader, [root], store, db, quiet);
  const dir = join(root, 'projects', '-src-app');
  mkdirSync(dir, { recursive: true });
  const input = () =>
    [...store.counters.values()]
      .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'input')
      .reduce((a, c) => a + c.value, 0);
  const count = (metric: string) =>
    [...store.counters.values()].filter((c) => c.metric === metric).reduce((a, c) => a + c.value, 0);
  return { db, store, collector, root, dir, stateDir, input, count, file: join(dir, 's1.jsonl') };
}

describe('collector', () => {
  it('leaves a half-written last line for the next read', async () => {
    const t = setup();
    const line = answer('m1', 100);
    writeFileSync(t.file, line.slice(0, 40));
    await t.collector.scan();
    expect(t.input()).toBe(0);
    appendFileSync(t.file, line.slice(40));
    await t.collector.scan();
    expect(t.input()).toBe(100);
  });

  it('reads only appended bytes', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    await t.collector.scan();
    const before = t.collector.stats.readBytes;
    const more = answer('m2', 50, 2);
    appendFileSync(t.file, more);
    await t.collector.scan();
    expect(t.collector.stats.readBytes - before).toBe(Buffer.byteLength(more));
    expect(t.input()).toBe(150);
    await t.collector.scan();
    expect(t.collector.stats.readBytes - before).toBe(Buffer.byteLength(more));
  });

  it('keeps counters when a harness deletes a transcript', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    await t.collector.scan();
    rmSync(t.file);
    await t.collector.scan();
    expect(t.input()).toBe(100);
    expect(t.count('prompts')).toBe(1);
    expect(t.collector.stats.files).toBe(0);
  });

  it('reads a file rewritten with the same beginning again without counting its old lines twice', async () => {
    const t = setup();
    const old = prompt('u1') + answer('m1', 100);
    writeFileSync(t.file, old);
    await t.collector.scan();
    writeFileSync(`${t.file}.tmp`, old + prompt('u2', 5) + answer('m2', 7, 6));
    renameSync(`${t.file}.tmp`, t.file); // a new inode under the same name
    await t.collector.scan();
    expect(t.input()).toBe(107);
    expect(t.count('prompts')).toBe(2);
  });

  it('reads a truncated file that starts over as new content', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100) + answer('m2', 100, 2));
    await t.collector.scan();
    truncateSync(t.file, 0);
    appendFileSync(t.file, prompt('u3', 10) + answer('m3', 5, 11));
    await t.collector.scan();
    expect(t.input()).toBe(205);
    expect(t.count('prompts')).toBe(2);
  });

  it('resumes from the state database after a restart without reading history again', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    await t.collector.scan();
    t.db.close();
    const again = setup(t.stateDir, t.root);
    await again.collector.scan();
    expect(again.collector.stats.readBytes).toBe(0);
    expect(again.input()).toBe(100);
    expect(again.store.sessions.get('claude-code/s1')?.lastTurn?.outcome).toBe('completed');
    appendFileSync(t.file, answer('m1', 100) + answer('m9', 1, 3)); // a repeat of a counted response, and a new one
    await again.collector.scan();
    expect(again.input()).toBe(101);
  });

  it('reads a file again from its start, counting nothing twice, when its state is of an older version the reader cannot migrate', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    await t.collector.scan();
    t.db.close();
    // The next release of the reader keeps its state in another shape, and cannot migrate the old one.
    const next = { ...claudeCode, stateVersion: 2 };
    const again = setup(t.stateDir, t.root, next);
    appendFileSync(t.file, answer('m2', 50, 2));
    await again.collector.scan();
    expect(again.collector.stats.readBytes).toBe(statSync(t.file).size);
    expect(again.input()).toBe(150);
    expect(again.count('prompts')).toBe(1);
    again.db.close();
    const third = setup(t.stateDir, t.root, next); // the state was written in the new version
    await third.collector.scan();
    expect(third.collector.stats.readBytes).toBe(0);
  });

  it('goes on where it was with a state of an older version the reader migrates', async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    await t.collector.scan();
    t.db.close();
    const from: number[] = [];
    const again = setup(t.stateDir, t.root, {
      ...claudeCode,
      stateVersion: 2,
      migrateState: (old, v) => (from.push(v), old),
    });
    const more = answer('m2', 50, 2);
    appendFileSync(t.file, more);
    await again.collector.scan();
    expect(from).toEqual([1]);
    expect(again.collector.stats.readBytes).toBe(Buffer.byteLength(more));
    expect(again.input()).toBe(150);
  });

  it('skips unparseable records and counts them by reason', async () => {
    const t = setup();
    writeFileSync(t.file, `{"type":"assistant","message":{"id":"x"\n${answer('m1', 3)}`);
    await t.collector.scan();
    expect(t.collector.stats.skipped.get('parse_error')).toBe(1);
    expect(t.input()).toBe(3);
  });

  it('reports a root it cannot read as a failure, and a missing root as none', async () => {
    const t = setup();
    const loop = join(tempDir(), 'loop'); // stat fails with ELOOP, as an unreadable root would
    symlinkSync(loop, loop);
    const db = new StateDb(tempDir());
    const broken = new Collector('claude-code', claudeCode, [loop], t.store, db, quiet);
    await broken.scan();
    expect(broken.stats.success).toBe(false);
    const missing = new Collector('claude-code', claudeCode, [join(tempDir(), 'nope')], t.store, db, quiet);
    await missing.scan();
    expect(missing.stats.success).toBe(true);
    expect(missing.stats.files).toBe(0);
  });

  it("loads the registry's reader of a harness only once a root of it is there, and reads with it", async () => {
    const t = setup();
    const root = join(tempDir(), 'claude');
    let loads = 0;
    const registered = HARNESSES['claude-code'];
    const collector = new Collector(
      'claude-code',
      { ...registered, load: () => (loads++, registered.load()) },
      [root],
      t.store,
      t.db,
      quiet,
    );
    // Where it looks is known without the reader: the watchers start from it.
    expect(collector.watchPaths()).toEqual([join(root, 'projects'), join(root, 'sessions')]);
    await collector.loadReader();
    await collector.scan();
    expect([loads, collector.stats.success]).toEqual([0, true]);
    mkdirSync(join(root, 'projects', '-src-app'), { recursive: true });
    writeFileSync(join(root, 'projects', '-src-app', 's1.jsonl'), prompt('u1') + answer('m1', 100));
    await collector.scan();
    await collector.scan();
    expect([loads, t.input()]).toEqual([1, 100]);
  });

  it('reports a folder it cannot list as a failure, naming it once at warn until it can be read again', async () => {
    const t = setup();
    writeFileSync(t.file, answer('m1', 3));
    const lines: string[] = [];
    const log = createLogger('info', (l) => lines.push(l));
    const collector = new Collector('claude-code', claudeCode, [t.root], t.store, t.db, log);
    const warned = () => lines.filter((l) => l.includes('"cannot read folder"'));
    // A file where the projects folder should be: listing it fails (ENOTDIR), as an unreadable one (EACCES) does.
    const projects = join(t.root, 'projects');
    const moved = `${projects}.away`;
    renameSync(projects, moved);
    writeFileSync(projects, '');
    await collector.scan();
    await collector.scan();
    expect(collector.stats.success).toBe(false);
    expect(warned()).toHaveLength(1);
    expect(JSON.parse(warned()[0]!)).toMatchObject({
      level: 'warn',
      collector: 'claude-code',
      path: projects,
      error: 'ENOTDIR',
    });
    rmSync(projects);
    renameSync(moved, projects);
    await collector.scan();
    expect(collector.stats.success).toBe(true);
    expect(t.input()).toBe(3);
    rmSync(projects, { recursive: true });
    writeFileSync(projects, '');
    await collector.scan();
    expect(collector.stats.success).toBe(false);
    expect(warned()).toHaveLength(2);
  });
});

describe('symbolic links', () => {
  it('reads a project folder and a transcript that are links, as their copies would be', async () => {
    const t = setup();
    const elsewhere = tempDir(); // another disk, a dotfiles repository
    mkdirSync(join(elsewhere, 'project'));
    writeFileSync(join(elsewhere, 'project', 's1.jsonl'), prompt('u1') + answer('m1', 100));
    writeFileSync(join(elsewhere, 's2.jsonl'), prompt('u2') + answer('m2', 10));
    symlinkSync(join(elsewhere, 'project'), join(t.root, 'projects', '-src-linked'));
    symlinkSync(join(elsewhere, 's2.jsonl'), join(t.dir, 's2.jsonl'));
    await t.collector.scan();
    expect(t.input()).toBe(110);
    expect(t.count('prompts')).toBe(2);
    appendFileSync(join(elsewhere, 's2.jsonl'), answer('m3', 1, 2));
    await t.collector.scan();
    expect(t.input()).toBe(111);
  });

  it.each(['a-link', 'z-link'])(
    'reads a file reached twice (%s.jsonl, a link to a transcript beside it) once, across appends and a restart',
    async (link) => {
      const t = setup();
      writeFileSync(t.file, prompt('u1') + answer('m1', 100));
      symlinkSync(t.file, join(t.dir, `${link}.jsonl`));
      // The same folder reached again, through a link to it.
      symlinkSync(t.dir, join(t.root, 'projects', '-src-again'));
      await t.collector.scan();
      expect(t.input()).toBe(100);
      expect(t.count('prompts')).toBe(1);
      expect(t.collector.stats.readBytes).toBe(statSync(t.file).size);
      appendFileSync(t.file, prompt('u2', 3) + answer('m2', 5, 4));
      await t.collector.scan();
      t.db.close();
      const again = setup(t.stateDir, t.root);
      appendFileSync(t.file, prompt('u3', 5) + answer('m3', 1, 6));
      await again.collector.scan();
      expect(again.input()).toBe(106);
      expect(again.count('prompts')).toBe(3);
    },
  );
});

describe('a harness whose files are found by a search (Aider, in the home folder)', () => {
  it('searches at a rescan only; between, reads what it found as it grows, and the files of a process working elsewhere', async () => {
    const home = tempDir();
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('aider', aider, [home], store, db, quiet);
    const sent = () =>
      [...store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'input')
        .reduce((a, c) => a + c.value, 0);
    const history = (...p: string[]) => {
      mkdirSync(join(home, ...p), { recursive: true });
      return join(home, ...p, '.aider.chat.history.md');
    };
    const answer = (n: number) => `#### go\n\n> Tokens: ${n} sent, 1 received.\n\nDone.\n`;
    const started = (time: string) =>
      `# aider chat started at ${time}\n\n> Main model: gpt-5 with diff edit format\n\n`;
    const app = history('src', 'app');
    writeFileSync(app, `${started('2026-11-30 10:00:00')}${answer(100)}`);
    await collector.scan();
    expect(sent()).toBe(100);
    expect(collector.watchFiles()).toEqual([app]);

    // A file changed: what was found is read again, nothing is searched for.
    appendFileSync(app, answer(50));
    writeFileSync(history('src', 'api'), `${started('2026-11-30 11:00:00')}${answer(7)}`);
    await collector.scan(false);
    expect(sent()).toBe(150);

    // An Aider with no session working deeper than the search goes: its folder and those above are looked in.
    const deep = history('a', 'b', 'c', 'd', 'e', 'repo');
    writeFileSync(deep, `${started('2026-11-30 12:00:00')}${answer(1000)}`);
    expect(collector.lookNear(join(home, 'a', 'b', 'c', 'd', 'e', 'repo', 'lib'))).toBe(true);
    expect(collector.lookNear(join(home, 'a', 'b', 'c', 'd', 'e', 'repo'))).toBe(false);
    expect(collector.lookNear(join(home, 'src', 'app'))).toBe(false);
    await collector.scan(false);
    expect(sent()).toBe(1150);
    expect(collector.watchFiles().sort()).toEqual([deep, app]);

    // The rescan searches: what the search cannot reach is kept while it is there.
    await collector.scan();
    expect(sent()).toBe(1157);
    rmSync(deep);
    await collector.scan();
    expect(collector.watchFiles()).toHaveLength(2);
    expect(collector.stats.success).toBe(true);
  });

  it("renames the sessions an earlier release named by their history's path: they go on under the new id, nothing counted twice", async () => {
    const home = tempDir();
    const stateDir = tempDir();
    mkdirSync(join(home, 'src', 'app'), { recursive: true });
    const path = join(home, 'src', 'app', '.aider.chat.history.md');
    const answer = (n: number) =>
      `#### go\n\n> Tokens: ${n} sent, 1 received. Cost: $0.01 message, $${n / 1000} session.\n\nDone.\n`;
    writeFileSync(
      path,
      `# aider chat started at 2026-11-30 10:00:00\n\n> Main model: gpt-5 with diff edit format\n\n${answer(100)}`,
    );
    // The release before: a session's id was its history's path and its header time.
    const before: LineReader<AiderState> = {
      ...aider,
      renamedSession: undefined,
      searchFiles: undefined,
      listFiles: (root) => aider.listFiles(root).map((f) => ({ ...f, sessionId: f.path })),
      sessionOf: (f, s) => (s.started === undefined ? f.path : `${f.path}#${s.started}`),
    };
    const run = async (reader: LineReader<AiderState>) => {
      const db = new StateDb(stateDir);
      const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
      await new Collector('aider', reader, [home], store, db, quiet).scan();
      const sent = [...store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'input')
        .reduce((a, c) => a + c.value, 0);
      const sessions = [...store.sessions.values()].map((s) => [s.id, s.tokens.input]);
      db.close();
      const again = new StateDb(stateDir);
      const stored = again.sessions().map((r) => r.key);
      again.close();
      return { sent, sessions, stored };
    };
    expect((await run(before)).sessions).toEqual([[`${path}#2026-11-30 10:00:00`, 100]]);
    appendFileSync(path, answer(300));
    const after = await run(aider);
    const id = `${createHash('sha256').update(path).digest('hex').slice(0, 12)}#2026-11-30T10:00:00`;
    expect(after.sent).toBe(400);
    expect(after.sessions).toEqual([[id, 400]]);
    expect(after.stored).toEqual([`aider/${id}`]);
  });

  it('answers in between while it searches: the event loop turns during a search of many folders', async () => {
    const home = tempDir();
    for (let i = 0; i < 200; i++) mkdirSync(join(home, `p${i}`, 'src'), { recursive: true });
    mkdirSync(join(home, 'p7', 'repo'));
    writeFileSync(join(home, 'p7', 'repo', '.aider.chat.history.md'), '');
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('aider', aider, [home], store, db, quiet);
    let done = false;
    const scanned = collector.scan().then(() => (done = true));
    // What a scrape needs: a turn of the event loop, before the search is over.
    const answeredDuring = await new Promise<boolean>((r) => setImmediate(() => r(!done)));
    await scanned;
    expect(answeredDuring).toBe(true);
    expect(collector.watchFiles()).toEqual([join(home, 'p7', 'repo', '.aider.chat.history.md')]);
  });
});

describe('Claude Code process registry', () => {
  it("hands the process scan every registry file, with its pid, start and status (whether it runs is the process table's to say)", async () => {
    const t = setup();
    writeFileSync(t.file, prompt('u1') + answer('m1', 100));
    mkdirSync(join(t.root, 'sessions'));
    writeFileSync(
      join(t.root, 'sessions', '11721.json'),
      JSON.stringify({
        pid: 11721,
        sessionId: 's1',
        procStart: '355797',
        status: 'waiting',
        waitingFor: 'permission prompt',
      }),
    );
    writeFileSync(
      join(t.root, 'sessions', '11722.json'),
      JSON.stringify({ pid: 11722, sessionId: 's2', status: 'busy' }),
    );
    writeFileSync(join(t.root, 'sessions', '11722.abc.key'), 'secret');
    await t.collector.scan();
    expect(t.store.registryEntries()).toEqual([
      [
        'claude-code',
        { sessionId: 's1', pid: 11721, procStart: 355797, status: 'waiting', waitingFor: 'permission prompt' },
      ],
      ['claude-code', { sessionId: 's2', pid: 11722, status: 'busy', waitingFor: undefined }],
    ]);
  });
});

/** A Codex collector over a fresh root with a day folder of rollouts. */
function codexSetup() {
  const root = tempDir();
  const db = new StateDb(tempDir());
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector('codex', codex, [root], store, db, quiet);
  const day = join(root, 'sessions', '2026', '11', '30');
  mkdirSync(day, { recursive: true });
  const count = (metric: string) =>
    [...store.counters.values()].filter((c) => c.metric === metric).reduce((a, c) => a + c.value, 0);
  return { root, store, collector, day, count };
}

describe('moved files', () => {
  it('carries on from where a moved file was read (Codex archiving a rollout), without counting it again', async () => {
    const { root, store, collector, day, count } = codexSetup();
    const name = 'rollout-2026-11-30T10-00-00-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl';
    mkdirSync(join(root, 'archived_sessions'));
    const line = (o: object) => `${JSON.stringify({ timestamp: ts(1), ...o })}\n`;
    writeFileSync(
      join(day, name),
      line({ type: 'session_meta', payload: { id: 'x', cwd: '/src/app' } }) +
        line({ type: 'event_msg', payload: { type: 'user_message', message: 'hi' } }) +
        line({
          type: 'event_msg',
          payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 10, output_tokens: 2 } } },
        }),
    );
    await collector.scan();
    renameSync(join(day, name), join(root, 'archived_sessions', name));
    await collector.scan();
    expect(store.sessions.size).toBe(1);
    expect(count('prompts')).toBe(1);
    expect(count('tokens')).toBe(12);
    expect(collector.stats.files).toBe(1);
    // Archived: still counted, no longer a live session.
    const at = Date.UTC(2026, 10, 30, 10, 5);
    const opts = { status: { doneForMs: 1_800_000, staleAfterMs: 7_200_000 }, activeWindowMs: 86_400_000 };
    expect([...store.sessions.values()][0]!.archived).toBe(true);
    expect(liveSessions(store, at, opts)).toEqual([]);
  });
});

describe('Codex subagent rollouts', () => {
  it("fold into their parent's session", async () => {
    const { store, collector, day, count } = codexSetup();
    const line = (s: number, o: object) => `${JSON.stringify({ timestamp: ts(s), ...o })}\n`;
    const parent = '01a22a3d-0000-7000-8000-000000000001';
    const child = '01a22a3d-0000-7000-8000-000000000002';
    const total = (input: number) => ({
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: { input_tokens: input, output_tokens: 1 } } },
    });
    writeFileSync(
      join(day, `rollout-2026-11-30T10-00-00-${parent}.jsonl`),
      line(0, { type: 'session_meta', payload: { id: parent, cwd: '/src/app' } }) +
        line(1, { type: 'event_msg', payload: { type: 'user_message', message: 'go' } }) +
        line(2, total(100)),
    );
    writeFileSync(
      join(day, `rollout-2026-11-30T10-00-05-${child}.jsonl`),
      line(5, {
        type: 'session_meta',
        payload: { id: child, cwd: '/src/app', source: { subagent: { thread_spawn: { parent_thread_id: parent } } } },
      }) +
        // Its own first turn: what comes before it replays the parent's history.
        line(8, { type: 'turn_context', payload: { cwd: '/src/app', model: 'gpt-5' } }) +
        line(9, total(30)),
    );
    await collector.scan();
    expect([...store.sessions.keys()]).toEqual([`codex/${parent}`]);
    expect(count('sessionsStarted')).toBe(1);
    expect(count('prompts')).toBe(1);
    expect(count('tokens')).toBe(132);
  });
});

describe('document files (one JSON document rewritten whole)', () => {
  // A toy reader, not any harness's: `{"tokens": {"<request id>": n}}`, the state keeps what was counted per id.
  interface DocState {
    counted: Record<string, number>;
  }
  const docReader: LineReader<DocState> = {
    harness: 'aider',
    kind: 'files',
    defaultRoots: () => [],
    watchPaths: (root) => [root],
    listFiles: (root) =>
      existsSync(join(root, 'doc.json')) ? [{ path: join(root, 'doc.json'), sessionId: 's1', document: true }] : [],
    initialState: () => ({ counted: {} }),
    readLine: () => {
      throw new Error('a document is never read by lines');
    },
    readDocument(doc, state, _file, ev) {
      const tokens = obj(parseJson(doc)?.tokens);
      if (!tokens) return ev.skipped('parse_error');
      ev.meta({ cwd: '/src/app' });
      for (const [id, n] of Object.entries(tokens)) {
        const before = state.counted[id] ?? 0;
        if (typeof n === 'number' && n > before) ev.usage('m', { ...ZERO_USAGE, input: n - before }, n, 0);
        state.counted[id] = Math.max(before, Number(n) || 0);
      }
    },
  };
  function docSetup(stateDir = tempDir(), root = tempDir(), reader: Reader<DocState> = docReader) {
    const db = new StateDb(stateDir);
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('aider', reader, [root], store, db, quiet);
    const input = () =>
      [...store.counters.values()].filter((c) => c.labels.token_type === 'input').reduce((a, c) => a + c.value, 0);
    return { collector, input, root, stateDir, path: join(root, 'doc.json') };
  }
  const t0Doc = Date.UTC(2026, 10, 30, 10, 0, 0);
  const later = (path: string, s: number) => utimesSync(path, new Date(t0Doc + s * 1000), new Date(t0Doc + s * 1000));

  it('reads a document again when it is rewritten in place, even at the same size, counting only what is new', async () => {
    const t = docSetup();
    writeFileSync(t.path, '{"tokens": {"a": 10}}');
    later(t.path, 1);
    await t.collector.scan();
    expect(t.input()).toBe(10);
    writeFileSync(t.path, '{"tokens": {"a": 15}}'); // same size: only the mtime tells
    later(t.path, 2);
    await t.collector.scan();
    expect(t.input()).toBe(15);
    const read = t.collector.stats.readBytes;
    await t.collector.scan(); // unchanged: not read
    expect(t.collector.stats.readBytes).toBe(read);
  });

  it('reads a document by the stat its listing took (one stat per file), so a change after the listing is read at the next scan', async () => {
    const t = docSetup();
    writeFileSync(t.path, '{"tokens": {"a": 10}}');
    later(t.path, 1);
    let writeAfterListing: (() => void) | undefined;
    const listing: Reader<DocState> = {
      ...docReader,
      listFiles: (root) => {
        const stat = fileStat(join(root, 'doc.json'));
        writeAfterListing?.();
        writeAfterListing = undefined;
        return stat ? [{ path: join(root, 'doc.json'), sessionId: 's1', document: true, stat }] : [];
      },
    };
    const s = docSetup(t.stateDir, t.root, listing);
    await s.collector.scan();
    expect(s.input()).toBe(10);
    writeAfterListing = () => {
      writeFileSync(t.path, '{"tokens": {"a": 12}}'); // same size: only the mtime tells
      later(t.path, 2);
    };
    await s.collector.scan(); // listed unchanged: not read
    expect(s.input()).toBe(10);
    const read = s.collector.stats.readBytes;
    await s.collector.scan();
    expect(s.input()).toBe(12);
    expect(s.collector.stats.readBytes).toBeGreaterThan(read);
  });

  it('takes a document removed after its listing took its stat as not listed, without failing', async () => {
    const t = docSetup();
    writeFileSync(t.path, '{"tokens": {"a": 10}}');
    const listing: Reader<DocState> = {
      ...docReader,
      listFiles: (root) => {
        const stat = fileStat(join(root, 'doc.json'));
        rmSync(join(root, 'doc.json'), { force: true });
        return stat ? [{ path: join(root, 'doc.json'), sessionId: 's1', document: true, stat }] : [];
      },
    };
    const s = docSetup(t.stateDir, t.root, listing);
    await s.collector.scan();
    expect(s.collector.stats.success).toBe(true);
    expect(s.input()).toBe(0);
  });

  it('keeps counting from its state when the document is replaced by a rename, and after a restart', async () => {
    const t = docSetup();
    writeFileSync(t.path, '{"tokens": {"a": 10}}');
    await t.collector.scan();
    writeFileSync(`${t.path}.tmp`, '{"tokens": {"a": 10, "b": 5}}');
    renameSync(`${t.path}.tmp`, t.path);
    await t.collector.scan();
    expect(t.input()).toBe(15);
    const again = docSetup(t.stateDir, t.root);
    writeFileSync(t.path, '{"tokens": {"a": 10, "b": 5, "c": 1}}');
    await again.collector.scan();
    expect(again.input()).toBe(16);
  });

  it('rebuilds a state of an older version it cannot migrate from the document as it is, counting nothing twice', async () => {
    const t = docSetup();
    writeFileSync(t.path, '{"tokens": {"a": 10}}');
    later(t.path, 1);
    await t.collector.scan();
    const again = docSetup(t.stateDir, t.root, { ...docReader, stateVersion: 2 });
    writeFileSync(t.path, '{"tokens": {"a": 12}}');
    later(t.path, 2);
    await again.collector.scan(); // read without counting: the new state knows 12 of a
    expect(again.input()).toBe(10);
    writeFileSync(t.path, '{"tokens": {"a": 12, "b": 5}}');
    later(t.path, 3);
    await again.collector.scan();
    expect(again.input()).toBe(15);
  });

  it('skips a document over the size limit without reading it, once per change', async () => {
    const t = docSetup();
    writeFileSync(t.path, '');
    truncateSync(t.path, 33 << 20); // sparse: no 33 MB written
    await t.collector.scan();
    await t.collector.scan();
    expect(t.collector.stats.skipped.get('file_too_large')).toBe(1);
    expect(t.collector.stats.readBytes).toBe(0);
    expect(t.collector.stats.success).toBe(true);
  });

  it('reads a 32 MB document of small objects (seconds of JSON.parse) with turns of the event loop between pieces of it', async () => {
    const root = tempDir();
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('amp', amp, [root], store, db, quiet);
    // Amp's thread: one answer, and 32 MB of objects with a key each of their own (one JSON value per 16 bytes or fewer: parsed).
    const answer = {
      role: 'assistant',
      messageId: 1,
      content: [],
      usage: { model: 'claude-sonnet-4-5', inputTokens: 700, outputTokens: 5 },
    };
    const filler: string[] = [];
    for (let i = 0, bytes = 0; bytes < (32 << 20) - 4096; i++)
      bytes += filler[filler.push(`{"k${i}":${i},"padding":"abcdefghijklmnopqrstuvwxyz"}`) - 1]!.length + 1;
    writeFileSync(
      join(root, 'T-0123.json'),
      `{"id":"T-0123","messages":[${JSON.stringify(answer)}],"meta":{"traces":[],"filler":[${filler.join(',')}]}}`,
    );
    let turns = 0;
    let reading = true;
    const turn = () => {
      if (!reading) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    await collector.scan();
    reading = false;
    expect(collector.stats.skipped).toEqual(new Map());
    expect(
      [...store.counters.values()].filter((c) => c.labels.token_type === 'input').reduce((a, c) => a + c.value, 0),
    ).toBe(700);
    expect(turns).toBeGreaterThan(20); // read at once, none
  }, 120_000);

  it("reads a thread of 150,000 messages with turns of the event loop during its reader's pass, its counts handed over when the pass is done", async () => {
    const root = tempDir();
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    // The turns counted are those after the document was parsed, once its reader started on it.
    let reading = false;
    const reader: Reader<object> = { ...amp, readDocument: (...args) => ((reading = true), amp.readDocument(...args)) };
    const collector = new Collector('amp', reader, [root], store, db, quiet);
    const messages = [];
    for (let i = 0; i < 75_000; i++) {
      messages.push({
        role: 'user',
        messageId: 2 * i,
        content: [{ type: 'text', text: 'go on with the next step of the plan, and run the tests after it' }],
        meta: { sentAt: 1764496800000 + i },
      });
      messages.push({
        role: 'assistant',
        messageId: 2 * i + 1,
        content: [{ type: 'text', text: 'Done: the step is in place and the tests pass on this branch.' }],
        usage: { model: 'claude-sonnet-4-5', inputTokens: 2, outputTokens: 1 },
      });
    }
    writeFileSync(join(root, 'T-0123.json'), JSON.stringify({ id: 'T-0123', created: 1764496800000, messages }));
    const input = () =>
      [...store.counters.values()].filter((c) => c.labels.token_type === 'input').reduce((a, c) => a + c.value, 0);
    let turns = 0;
    const seenDuring = new Set<number>();
    let scanning = true;
    const turn = () => {
      if (!scanning) return;
      if (reading) {
        turns++;
        seenDuring.add(input());
      }
      setImmediate(turn);
    };
    setImmediate(turn);
    await collector.scan();
    scanning = false;
    expect(collector.stats.skipped).toEqual(new Map());
    expect(input()).toBe(150_000);
    expect(turns).toBeGreaterThan(5); // a synchronous pass: none
    // Nothing of the thread is in the store before its pass is done: no turn sees a part of it.
    expect([...seenDuring].filter((n) => n !== 150_000)).toEqual([0]);
    // Rewritten with one more answer: only it counts (the keys the pass asked are the store's).
    messages.push({
      role: 'assistant',
      messageId: 150_000,
      content: [{ type: 'text', text: 'One more.' }],
      usage: { model: 'claude-sonnet-4-5', inputTokens: 2, outputTokens: 1 },
    });
    writeFileSync(join(root, 'T-0123.json'), JSON.stringify({ id: 'T-0123', created: 1764496800000, messages }));
    await collector.scan();
    expect(input()).toBe(150_002);
  }, 120_000);
});

describe('store collector (a database of many sessions)', () => {
  function storeSetup(stateDir = tempDir(), root = tempDir(), log = quiet) {
    const db = new StateDb(stateDir);
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('opencode', opencode, [root], store, db, log);
    const output = () =>
      [...store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'output')
        .reduce((a, c) => a + c.value, 0);
    return { collector, output, root };
  }
  const call = (db: OpenCodeDb, id: string, t: number, output: number) => {
    db.assistant('s1', `m-${id}`, t);
    db.part('s1', `m-${id}`, id, t, { type: 'step-finish', cost: 0, tokens: tokens(1, output, 0, 0) });
  };

  it('commits the cursor with the counts: a restart reads nothing again, and new rows count once', async () => {
    const stateDir = tempDir();
    const root = tempDir();
    const db = new OpenCodeDb({ path: join(root, 'opencode.db') });
    db.session('s1', 0);
    call(db, 'p1', 1, 10);
    const first = storeSetup(stateDir, root);
    await first.collector.scan();
    expect(first.output()).toBe(10);
    expect(first.collector.stats.files).toBe(1);
    const restarted = storeSetup(stateDir, root);
    await restarted.collector.scan();
    expect(restarted.output()).toBe(10);
    call(db, 'p2', 2, 5);
    await restarted.collector.scan();
    await restarted.collector.scan();
    expect(restarted.output()).toBe(15);
  });

  it('fails only its own collector on a database it cannot read, and reads it once it can', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'opencode.db'), 'not a database, but long enough to have a header of one: '.repeat(4));
    const t = storeSetup(tempDir(), root);
    await t.collector.scan();
    expect(t.collector.stats.success).toBe(false);
    rmSync(join(root, 'opencode.db'));
    const db = new OpenCodeDb({ path: join(root, 'opencode.db') });
    db.session('s1', 0);
    call(db, 'p1', 1, 7);
    await t.collector.scan();
    expect(t.collector.stats.success).toBe(true);
    expect(t.output()).toBe(7);
  });

  it('names a database it cannot read at warn once per cause, not at every scan', async () => {
    const root = tempDir();
    const path = join(root, 'opencode.db');
    const lines: string[] = [];
    const t = storeSetup(
      tempDir(),
      root,
      createLogger('info', (l) => lines.push(l)),
    );
    const warned = () =>
      lines.filter((l) => l.includes('"could not read store"')).map((l) => (JSON.parse(l) as { error: string }).error);
    writeFileSync(path, 'not a database, but long enough to have a header of one: '.repeat(4));
    await t.collector.scan();
    await t.collector.scan();
    expect(t.collector.stats.success).toBe(false);
    expect(warned()).toHaveLength(1);
    // Another cause: a database another process holds locked (a rollback journal keeps readers out).
    rmSync(path);
    const db = new OpenCodeDb({ path });
    db.session('s1', 0);
    call(db, 'p1', 1, 7);
    db.db.pragma('journal_mode = DELETE');
    db.db.exec('BEGIN EXCLUSIVE');
    await t.collector.scan();
    await t.collector.scan();
    expect(t.collector.stats.success).toBe(false);
    expect(warned()).toHaveLength(2);
    expect(warned()[1]).not.toBe(warned()[0]);
    db.db.exec('COMMIT');
    await t.collector.scan();
    expect(t.collector.stats.success).toBe(true);
    expect(t.output()).toBe(7);
    // Read again since (with or without anything new): the same cause is worth naming again.
    for (const times of [3, 4]) {
      db.db.exec('BEGIN EXCLUSIVE');
      await t.collector.scan();
      db.db.exec('COMMIT');
      expect(warned()).toHaveLength(times);
      await t.collector.scan();
      expect(t.collector.stats.success).toBe(true);
    }
  });
});
