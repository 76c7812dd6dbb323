// Copilot Chat in VS Code as its files change: the journal VS Code rewrites shorter every 1024
// changes, the OTel database Copilot empties of spans older than 7 days, and a turn whose tokens
// two stores may hold, counted from one of them only.

import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { copilotVscode } from '../../src/readers/copilot-vscode/reader.js';
import { StateDb } from '../../src/state/db.js';
import { Database } from '../helpers/sqlite.js';
import { tempDir } from '../helpers/run.js';
import { TallyStore } from '../helpers/tally.js';
import { AGENT_TRACES_SCHEMA } from '../helpers/copilot-vscode.js';
import { denseJson } from '../helpers/json.js';

const S = '5f0c1b8e-2a4d-4c1e-9a51-0b8c2d3e4f60';
const T0 = 1796640000000;
const line = (v: object) => `${JSON.stringify(v)}\n`;

/** A user folder with one workspace (of `/projects/webapp`); the journal's path. */
function userDir(): { user: string; journal: string } {
  const user = tempDir();
  const ws = join(user, 'workspaceStorage', 'a1b2c3');
  mkdirSync(join(ws, 'chatSessions'), { recursive: true });
  writeFileSync(join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///projects/webapp' }));
  return { user, journal: join(ws, 'chatSessions', `${S}.jsonl`) };
}

const header = { kind: 0, v: { version: 3, creationDate: T0, sessionId: S, requests: [], initialLocation: 'panel' } };
const request = (n: number) => ({
  requestId: `request_${n}`,
  timestamp: T0 + n * 60_000,
  message: { text: 'go on' },
  modelId: 'copilot/claude-sonnet-4.5',
  response: [],
  modelState: { value: 0 },
});
/** The lines of request `n` (the `n`th of the session) from its push to its end, with `output` tokens in its result. */
const requestLines = (n: number, output: number) =>
  [
    { kind: 2, k: ['requests'], v: [request(n)] },
    {
      kind: 2,
      k: ['requests', n, 'response'],
      v: [
        { value: 'Looking.' },
        {
          kind: 'toolInvocationSerialized',
          toolCallId: `call_${n}`,
          toolId: 'copilot_readFile',
          isComplete: true,
          isConfirmed: { type: 1 },
        },
      ],
    },
    {
      kind: 1,
      k: ['requests', n, 'result'],
      v: { timings: { totalElapsed: 5000 }, metadata: { promptTokens: 9000, outputTokens: output } },
    },
    { kind: 1, k: ['requests', n, 'modelState'], v: { value: 1, completedAt: T0 + n * 60_000 + 5000 } },
  ]
    .map(line)
    .join('');

/** A collector and its tallying store over one user folder, scanned as many times as a test likes. */
function reading(user: string) {
  const db = new StateDb(tempDir());
  const store = new TallyStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector('copilot-vscode', copilotVscode, [user], store, db, createLogger('error'));
  const tokens = (type: string) =>
    [...store.counters.values()]
      .filter((c) => c.metric === 'tokens' && c.labels.token_type === type)
      .map((c) => c.value);
  const tally = (k: string) => store.bySession.get(`copilot-vscode/${S}`)?.get(k) ?? 0;
  return { store, collector, tokens, tally, scan: () => collector.scan() };
}

interface Call {
  id: string;
  session?: string;
  turn: number;
  input: number;
  output: number;
  cached?: number;
  cacheWrite?: number;
  end: number;
  operation?: string;
}

/** Writes to the user folder's agent-traces.db (made on first use) as Copilot's exporter does. */
function traces(user: string, f: (db: InstanceType<typeof Database>) => void): void {
  const dir = join(user, 'globalStorage', 'github.copilot-chat');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'agent-traces.db');
  const fresh = !statSync(path, { throwIfNoEntry: false });
  const db = new Database(path);
  try {
    if (fresh) db.exec(AGENT_TRACES_SCHEMA);
    f(db);
  } finally {
    db.close();
  }
}

function insert(db: InstanceType<typeof Database>, c: Call): void {
  db.prepare(
    `INSERT INTO spans (span_id, trace_id, name, start_time_ms, end_time_ms, status_code, operation_name, request_model, input_tokens, output_tokens,
    cached_tokens, chat_session_id, turn_index) VALUES (?, 't', 'chat', ?, ?, 1, ?, 'claude-sonnet-4.5', ?, ?, ?, ?, ?)`,
  ).run(c.id, c.end - 1000, c.end, c.operation ?? 'chat', c.input, c.output, c.cached ?? null, c.session ?? S, c.turn);
  if (c.cacheWrite !== undefined)
    db.prepare('INSERT INTO span_attributes VALUES (?, ?, ?)').run(
      c.id,
      'gen_ai.usage.cache_creation.input_tokens',
      String(c.cacheWrite),
    );
}

describe('copilot-vscode', () => {
  it('reads a journal VS Code rewrote as one shorter line without counting anything again, and what follows it once', async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700));
    const r = reading(user);
    await r.scan();
    const counts = () => [r.tally('prompts'), r.tally('turns:completed'), r.tally('toolCalls'), r.tokens('output')];
    expect(counts()).toEqual([1, 1, 1, [700]]);

    // Compacted: the session as it stands, one `kind` 0 line (the "replace" path), shorter.
    const before = statSync(journal).size;
    const whole = {
      ...header.v,
      requests: [
        {
          ...request(0),
          response: [
            { value: 'Looking.' },
            { kind: 'toolInvocationSerialized', toolCallId: 'call_0', toolId: 'copilot_readFile', isComplete: true },
          ],
          result: { metadata: { promptTokens: 9000, outputTokens: 700 } },
          modelState: { value: 1, completedAt: T0 + 5000 },
        },
      ],
    };
    writeFileSync(journal, line({ kind: 0, v: whole }));
    expect(statSync(journal).size).toBeLessThan(before);
    await r.scan();
    expect(counts()).toEqual([1, 1, 1, [700]]);

    appendFileSync(journal, requestLines(1, 300));
    await r.scan();
    expect(counts()).toEqual([2, 2, 2, [1000]]);
    expect(r.store.sessions.get(`copilot-vscode/${S}`)).toMatchObject({
      cwd: '/projects/webapp',
      model: 'claude-sonnet-4.5',
    });
    expect(r.tokens('input')).toEqual([]);
    expect(r.collector.stats.skipped).toEqual(new Map());
  });

  it('waits for a last line still being written, and counts it once whole', async () => {
    const { user, journal } = userDir();
    const lines = line(header) + requestLines(0, 700);
    writeFileSync(journal, lines.slice(0, -20));
    const r = reading(user);
    await r.scan();
    expect([r.tally('turns:completed'), r.collector.stats.skipped]).toEqual([0, new Map()]);
    writeFileSync(journal, lines);
    await r.scan();
    expect([r.tally('turns:completed'), r.tokens('output')]).toEqual([1, [700]]);
  });

  it("counts a turn's tokens from the database where it holds the turn's calls, else from the journal: never both", async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700));
    const r = reading(user);
    await r.scan();
    expect(r.tokens('output')).toEqual([700]);

    // The person turns the database on: it holds a call of turn 0 (counted already from the
    // journal) and the call of turn 1, whose journal entry says its output too.
    traces(user, (db) => {
      insert(db, { id: 'a0', turn: 0, input: 9000, output: 650, end: T0 + 4000 });
      insert(db, { id: 'a1', turn: 1, input: 12000, output: 280, cached: 8000, cacheWrite: 1000, end: T0 + 64000 });
    });
    appendFileSync(journal, requestLines(1, 300));
    await r.scan();
    expect([r.tokens('output'), r.tokens('input'), r.tokens('cache_read'), r.tokens('cache_write')]).toEqual([
      [980],
      [3000],
      [8000],
      [1000],
    ]);
    expect(r.tally('prompts')).toBe(2);

    // Read cold, the database (listed first) has both turns.
    const cold = reading(user);
    await cold.scan();
    expect([cold.tokens('output'), cold.tokens('input')]).toEqual([[930], [12000]]);
  });

  it('keeps what Copilot deletes from its database after 7 days: counters never go backwards', async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700) + requestLines(1, 300));
    traces(user, (db) => {
      insert(db, { id: 'a0', turn: 0, input: 1000, output: 600, cacheWrite: 0, end: T0 + 4000 });
      insert(db, { id: 'a1', turn: 1, input: 2000, output: 250, end: T0 + 64000 });
    });
    const r = reading(user);
    await r.scan();
    expect([r.tokens('input'), r.tokens('output')]).toEqual([[3000], [850]]);

    // Copilot's start-up cleanup empties the table; the next call's row reuses rowid 1.
    traces(user, (db) => {
      db.exec('DELETE FROM span_attributes; DELETE FROM spans');
      insert(db, { id: 'a2', turn: 2, input: 500, output: 90, end: T0 + 124000 });
    });
    appendFileSync(journal, requestLines(2, 100));
    await r.scan();
    expect([r.tokens('input'), r.tokens('output')]).toEqual([[3500], [940]]);
    expect(r.store.sessions.get(`copilot-vscode/${S}`)!.tokens).toMatchObject({ input: 3500, output: 940 });
    expect(r.tally('prompts')).toBe(3);
  });

  it('reads no cache writes from a database none of whose calls records them, and no call of a session it has no journal of', async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700));
    traces(user, (db) => {
      insert(db, { id: 'a0', turn: 0, input: 9000, output: 650, cached: 6000, end: T0 + 4000 });
      // A Copilot CLI session bridged into the editor: the copilot-cli reader's.
      insert(db, { id: 'b0', session: 'cli-session', turn: 0, input: 5000, output: 50, end: T0 + 4000 });
      // An agent run: its calls' sums again.
      insert(db, { id: 'c0', turn: 0, input: 9000, output: 650, end: T0 + 4000, operation: 'invoke_agent' });
    });
    const r = reading(user);
    await r.scan();
    expect([r.tokens('input'), r.tokens('cache_read'), r.tokens('cache_write'), r.tokens('output')]).toEqual([
      [3000],
      [6000],
      [],
      [650],
    ]);
    expect([...r.store.sessions.keys()]).toEqual([`copilot-vscode/${S}`]);
  });

  it('counts a failure only the transcript records once, under the label of the call the journal counted', async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700));
    const transcripts = join(user, 'workspaceStorage', 'a1b2c3', 'GitHub.copilot-chat', 'transcripts');
    mkdirSync(transcripts, { recursive: true });
    const event = (type: string, data: object) =>
      line({ type, data, id: type, timestamp: new Date(T0 + 3000).toISOString(), parentId: null });
    writeFileSync(
      join(transcripts, `${S}.jsonl`),
      event('tool.execution_start', { toolCallId: 'call_0', toolName: 'read_file', arguments: {} }) +
        event('tool.execution_complete', { toolCallId: 'call_0', success: false, result: { content: 'ENOENT' } }),
    );
    const r = reading(user);
    await r.scan();
    await r.scan();
    const labels = (metric: string) =>
      [...r.store.counters.values()]
        .filter((c) => c.metric === metric)
        .map((c) => [c.labels.tool, c.labels.kind, c.value]);
    expect([labels('toolCalls'), labels('toolErrors')]).toEqual([
      [['read_file', 'read', 1]],
      [['read_file', 'read', 1]],
    ]);
  });

  it('skips a journal or a transcript too dense to parse (as a document would be), each counted once, and reads the rest exactly', async () => {
    const { user, journal } = userDir();
    writeFileSync(journal, line(header) + requestLines(0, 700));
    const dense = `{"kind":2,"k":["requests"],"v":${denseJson(100_000)}}\n`;
    const other = '6a1d2c9f-3b5e-4d2f-8b62-1c9d3e4f5a71';
    writeFileSync(
      join(dirname(journal), `${other}.jsonl`),
      line({ kind: 0, v: { ...header.v, sessionId: other } }) + dense,
    );
    const transcripts = join(user, 'workspaceStorage', 'a1b2c3', 'GitHub.copilot-chat', 'transcripts');
    mkdirSync(transcripts, { recursive: true });
    writeFileSync(join(transcripts, `${S}.jsonl`), dense);
    const r = reading(user);
    await r.scan();
    await r.scan();
    expect(r.collector.stats.skipped).toEqual(new Map([['file_too_large', 2]]));
    expect([r.tally('prompts'), r.tally('turns:completed'), r.tally('toolCalls'), r.tokens('output')]).toEqual([
      1,
      1,
      1,
      [700],
    ]);
    expect(r.store.bySession.get(`copilot-vscode/${other}`)).toBeUndefined();
  });

  it('reads an older session document (`.json`), and only the log where both are there', async () => {
    const { user, journal } = userDir();
    const older = join(user, 'workspaceStorage', 'a1b2c3', 'chatSessions', 'old-session.json');
    writeFileSync(
      older,
      JSON.stringify({
        version: 3,
        creationDate: T0,
        sessionId: 'old-session',
        requests: [{ ...request(0), modelState: undefined, isCanceled: true, result: {} }],
      }),
    );
    writeFileSync(journal, line(header) + requestLines(0, 700));
    writeFileSync(journal.replace(/\.jsonl$/, '.json'), JSON.stringify({ ...header.v, requests: [request(0)] }));
    expect(
      copilotVscode
        .listFiles(user)
        .map((f) => f.path.slice(user.length + 1))
        .sort(),
    ).toEqual([
      join('workspaceStorage', 'a1b2c3', 'chatSessions', `${S}.jsonl`),
      join('workspaceStorage', 'a1b2c3', 'chatSessions', 'old-session.json'),
    ]);
    const r = reading(user);
    await r.scan();
    expect(r.store.bySession.get('copilot-vscode/old-session')?.get('turns:interrupted')).toBe(1);
  });
});
