// Copilot CLI's two records of the same calls: `session-store.db` (a row per call) and the
// session's events.jsonl (a usage record per call in newer CLIs; in older ones each answer's output,
// and every run's totals at its end). Read through a real collector and store, in every order the
// two can be written and read, across restarts: every token counted exactly once.

import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { Database } from '../helpers/sqlite.js';
import { tempDir } from '../helpers/run.js';

const S = '7c1e9a02-0000-4000-8000-000000000001';
const t0 = Date.UTC(2026, 11, 7, 10, 0, 0);
let n = 0;
const line = (type: string, data: object) =>
  `${JSON.stringify({ type, data, id: `e${++n}`, timestamp: new Date(t0 + n * 1000).toISOString(), parentId: null })}\n`;
const start = () =>
  line('session.start', { sessionId: S, selectedModel: 'gpt-5.2', context: { cwd: '/src/app', branch: 'main' } });
type Call = [input: number, output: number, cacheRead: number, cacheWrite: number, reasoning: number];
const record = ([input, output, cacheRead, cacheWrite, reasoning]: Call, call: string) =>
  line('session.usage_record', {
    usage: {
      model: 'gpt-5.2',
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: reasoning,
      apiCallId: call,
    },
  });
/** A chat span of the OpenTelemetry file export. */
const span = ([input, output, cacheRead, cacheWrite, reasoning]: Call, response: string) =>
  `${JSON.stringify({
    name: 'chat gpt-5.2',
    endTimeUnixNano: String((t0 + ++n * 1000) * 1e6),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.conversation.id': S,
      'gen_ai.response.model': 'gpt-5.2',
      'gen_ai.response.id': response,
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
      'gen_ai.usage.cache_read.input_tokens': cacheRead,
      'gen_ai.usage.cache_write.input_tokens': cacheWrite,
      'gen_ai.usage.reasoning.output_tokens': reasoning,
    },
  })}\n`;
const answer = (output: number) =>
  line('assistant.message', {
    messageId: `m${n}`,
    content: 'y',
    toolRequests: [],
    outputTokens: output,
    model: 'gpt-5.2',
  });
const shutdown = (calls: Call[]) => {
  const sum = (i: number) => calls.reduce((a, c) => a + c[i]!, 0);
  return line('session.shutdown', {
    shutdownType: 'routine',
    modelMetrics: {
      'gpt-5.2': {
        requests: { count: calls.length, cost: calls.length },
        usage: {
          inputTokens: sum(0),
          outputTokens: sum(1),
          cacheReadTokens: sum(2),
          cacheWriteTokens: sum(3),
          reasoningTokens: sum(4),
        },
      },
    },
  });
};

const A: Call = [1000, 100, 600, 200, 10];
const B: Call = [3000, 50, 2500, 0, 0];
const C: Call = [500, 40, 0, 100, 0];
/** What calls come to in the metric contract (input without cache). */
const expected = (calls: Call[]) =>
  calls.reduce(
    (a, [i, o, r, w, x]) => ({
      input: a.input + i - r - w,
      output: a.output + o,
      cache_read: a.cache_read + r,
      cache_write: a.cache_write + w,
      reasoning: a.reasoning + x,
    }),
    { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 },
  );

/** A Copilot CLI home: one session's events.jsonl and the store's rows (a schema-8 store, as 1.0.9x writes it). */
function home() {
  const root = join(tempDir(), '.copilot');
  const logOf = (session: string) => {
    mkdirSync(join(root, 'session-state', session), { recursive: true });
    return join(root, 'session-state', session, 'events.jsonl');
  };
  logOf(S);
  const dbPath = join(root, 'session-store.db');
  const create = () => {
    const db = new Database(dbPath);
    db.exec(`CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (8);
      CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, summary TEXT, created_at TEXT, updated_at TEXT);
      CREATE TABLE assistant_usage_events (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, model TEXT, input_tokens INTEGER, output_tokens INTEGER,
        cache_read_tokens INTEGER, cache_write_tokens INTEGER, reasoning_tokens INTEGER, created_at TEXT DEFAULT (datetime('now')),
        total_nano_aiu INTEGER, request_multiplier REAL, initiator TEXT, finish_reason TEXT)`);
    db.close();
  };
  create();
  return {
    root,
    events: (...lines: string[]) => appendFileSync(logOf(S), lines.join('')),
    eventsOf: (session: string, ...lines: string[]) => appendFileSync(logOf(session), lines.join('')),
    spans: (...lines: string[]) => {
      mkdirSync(join(root, 'otel'), { recursive: true });
      appendFileSync(join(root, 'otel', 'spans.jsonl'), lines.join(''));
    },
    /** The store as a CLI that ended a while ago leaves it: settled, not written for minutes. */
    settle: () => utimesSync(dbPath, new Date(Date.now() - 600_000), new Date(Date.now() - 600_000)),
    /** Rows written by a new connection, or by `db`, a writer that keeps the store open. */
    rows: (calls: Call[], session = S, initiator: string | null = null, writer?: Database) => {
      const db = writer ?? new Database(dbPath);
      const insert =
        db.prepare(`INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
        reasoning_tokens, total_nano_aiu, request_multiplier, initiator) VALUES (?, 'gpt-5.2', ?, ?, ?, ?, ?, 1000, 1, ?)`);
      for (const c of calls) insert.run(session, ...c, initiator);
      if (!writer) db.close();
    },
    sessionRow: (session: string, cwd: string) => {
      const db = new Database(dbPath);
      db.prepare("INSERT INTO sessions (id, cwd, branch) VALUES (?, ?, 'main')").run(session, cwd);
      db.close();
    },
    /** The store rebuilt from the session logs: a new file, its rows numbered from 1 again. */
    rebuild: () => {
      for (const f of ['', '-wal', '-shm']) rmSync(`${dbPath}${f}`, { force: true });
      create();
    },
  };
}

/** The exporter over a home, with its state in `stateDir`: scanned, committed and closed each time. */
async function scan(root: string, stateDir: string) {
  const db = new StateDb(stateDir);
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector('copilot-cli', copilotCli, [root], store, db, createLogger('error'));
  await collector.scan();
  const sum = (metric: string, type?: string) =>
    [...store.counters.values()]
      .filter((c) => c.metric === metric && (type === undefined || c.labels.token_type === type))
      .reduce((a, c) => a + c.value, 0);
  const tokens = {
    input: sum('tokens', 'input'),
    output: sum('tokens', 'output'),
    cache_read: sum('tokens', 'cache_read'),
    cache_write: sum('tokens', 'cache_write'),
    reasoning: sum('reasoningTokens'),
  };
  const sessions = [...store.sessions.values()].map((s) => ({ id: s.id, cwd: s.cwd }));
  expect(collector.stats.skipped).toEqual(new Map());
  store.commit();
  db.close();
  return { tokens, sessions };
}

describe('Copilot CLI: the store and the event log count each call once', () => {
  it("counts the store's calls as they are written, where the log records only output until the run ends", async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), answer(100));
    h.rows([A]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A]));
    // The log's message read first, the store's row of its call after: the output is counted once.
    h.events(answer(50));
    expect((await scan(h.root, state)).tokens).toEqual({ ...expected([A]), output: 150 });
    h.rows([B]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    // The run ends after its calls were counted: its totals add nothing.
    h.events(shutdown([A, B]));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
  });

  it("counts a call once whichever of the store's row and the log's usage record is read first, across restarts", async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), record(A, 'c1'));
    h.rows([A]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A]));
    // The row first, its usage record after (a restart between the two).
    h.rows([B]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    h.events(record(B, 'c2'));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    // The usage record first, the row after.
    h.events(record(C, 'c3'));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B, C]));
    h.rows([C]);
    h.events(shutdown([A, B, C]));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B, C]));
  });

  it('counts two calls that say the same twice, and no more, from either source', async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), record(A, 'c1'));
    h.rows([A, A]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, A]));
    h.events(record(A, 'c2'));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, A]));
  });

  it("counts what only one source has: a call the log lacks (a compaction's), and one only the run-end totals hold", async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), record(A, 'c1'));
    h.rows([A]);
    h.rows([B], S, 'compaction');
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    // The run's totals hold a call neither recorded per call: only it is added.
    h.events(shutdown([A, B, C]));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B, C]));
  });

  it("counts many runs' ends read at once (the first scan of a settled store) against their own sessions' rows", async () => {
    const h = home();
    const state = tempDir();
    const ids = [1, 2, 3, 4].map((i) => `7c1e9a02-0000-4000-8000-00000000001${i}`);
    for (const id of ids) {
      h.eventsOf(id, start(), answer(100), shutdown([A, C]));
      h.rows([A, C], id);
    }
    h.settle();
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, C, A, C, A, C, A, C]));
    // A run resumed: its new call in the store and its end, which the sums kept before lack.
    h.rows([B], ids[2]);
    h.eventsOf(ids[2]!, shutdown([A, C, B]));
    h.settle();
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, C, A, C, A, C, A, C, B]));
  });

  it('counts a call once from the OpenTelemetry export and the store, whichever is read first', async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), answer(100));
    h.spans(span(A, 'r1'));
    h.rows([A]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A]));
    h.spans(span(B, 'r2'));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    h.rows([B]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
  });

  it("without the store's rows, the run-end totals count as before: output per message, the rest at the end", async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), answer(100), answer(50));
    expect((await scan(h.root, state)).tokens).toEqual({
      input: 0,
      output: 150,
      cache_read: 0,
      cache_write: 0,
      reasoning: 0,
    });
    h.events(shutdown([A, B]));
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
  });

  it('counts nothing again when the store is rebuilt from the logs (its rows numbered from 1 again)', async () => {
    const h = home();
    const state = tempDir();
    h.events(start(), answer(100));
    h.rows([A, B]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
    // Rebuilt with a call the old one lacked in the place of one it had: only that call is new.
    h.rebuild();
    h.rows([A, C]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B, C]));
    h.rows([B]);
    expect((await scan(h.root, state)).tokens).toEqual(expected([A, B, C]));
  });

  it('reads the calls only in the WAL of a store the CLI holds open, and leaves its bytes as they were', async () => {
    const h = home();
    const state = tempDir();
    const path = join(h.root, 'session-store.db');
    const writer = new Database(path);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0'); // the new rows stay in the -wal
      h.events(start(), answer(100));
      h.rows([A], S, null, writer);
      // The store's content; not the -shm, SQLite's shared-memory index (as in sqlite-stores-io.test.ts).
      const hashes = () =>
        ['', '-wal'].map((f) =>
          createHash('sha1')
            .update(readFileSync(`${path}${f}`))
            .digest('hex'),
        );
      const before = hashes();
      expect((await scan(h.root, state)).tokens).toEqual(expected([A]));
      expect(hashes()).toEqual(before);
      h.rows([B], S, null, writer);
      expect((await scan(h.root, state)).tokens).toEqual(expected([A, B]));
      expect(readFileSync(`${path}-wal`).length).toBeGreaterThan(0);
    } finally {
      writer.close();
    }
  });

  it("reads the calls of a session with no event log (the desktop app's) under its own id and working directory", async () => {
    const h = home();
    const other = '7c1e9a02-0000-4000-8000-000000000002';
    h.events(start());
    h.sessionRow(other, '/src/desktop');
    h.rows([C], other);
    const read = await scan(h.root, tempDir());
    expect(read.tokens).toEqual(expected([C]));
    expect(read.sessions).toContainEqual({ id: other, cwd: '/src/desktop' });
  });
});
