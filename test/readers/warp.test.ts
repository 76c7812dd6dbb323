import { mkdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionFile } from '../../src/readers/reader.js';
import { warp } from '../../src/readers/warp/reader.js';
import type { WarpState } from '../../src/readers/warp/database.js';
import { eventsNamed, recorder, type Recorded } from '../helpers/events.js';
import { Database } from '../helpers/sqlite.js';
import { tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';
import { drifted } from '../../src/session/drift.js';
import { denseJson } from '../helpers/json.js';

// Warp's tables as its Diesel migrations leave them (the columns read; the trigger that stamps a
// conversation's `last_modified_at` on every update), in WAL mode as Warp opens the database.
const SCHEMA = `
CREATE TABLE agent_conversations (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, conversation_data TEXT NOT NULL,
  last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, summary TEXT);
CREATE TRIGGER update_last_modified_at_for_agent_conversations AFTER UPDATE ON agent_conversations FOR EACH ROW
  WHEN NEW.last_modified_at IS OLD.last_modified_at BEGIN UPDATE agent_conversations SET last_modified_at = CURRENT_TIMESTAMP WHERE id = OLD.id; END;
CREATE UNIQUE INDEX ux_agent_conversations_conversation_id ON agent_conversations (conversation_id);
CREATE TABLE agent_tasks (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, task_id TEXT NOT NULL, task BLOB NOT NULL,
  last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE ai_queries (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL, conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL,
  input TEXT NOT NULL, working_directory TEXT, output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '',
  planning_model_id TEXT NOT NULL DEFAULT '', coding_model_id TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX ux_ai_queries_exchange_id ON ai_queries (exchange_id);
`;

const PARENT = '11111111-1111-4111-8111-111111111111';
const CHILD = '22222222-2222-4222-8222-222222222222';
const MODEL = 'claude-4-sonnet';

interface Usage {
  cents?: number;
  charged?: [number, number, number, number];
  warp?: number;
  tools?: Record<string, number>;
  lines?: [number, number];
  parent?: string;
}

/** `conversation_data` as Warp serializes AgentConversationData (optional fields left out when unset). */
function data(u: Usage): string {
  const [input, output, cacheRead, cacheWrite] = u.charged ?? [];
  return JSON.stringify({
    server_conversation_token: 'tok',
    conversation_usage_metadata: {
      was_summarized: false,
      context_window_usage: 0.2,
      credits_spent: 3.5,
      platform_credits_spent: 0,
      credits_spent_for_last_block: 0.5,
      ...(u.cents === undefined ? {} : { total_provider_cost_in_cents: u.cents }),
      ...(u.charged
        ? {
            total_charged_usage: {
              input_tokens: input,
              output_tokens: output,
              input_cache_read_tokens: cacheRead,
              input_cache_write_tokens: cacheWrite,
              input_cost_in_cents: 1,
            },
          }
        : {}),
      token_usage: [
        {
          model_id: MODEL,
          warp_tokens: u.warp ?? 5000,
          byok_tokens: 0,
          custom_endpoint_tokens: 0,
          warp_token_usage_by_category: { primary_agent: u.warp ?? 5000 },
        },
      ],
      tool_usage_metadata: {
        ...Object.fromEntries(Object.entries(u.tools ?? {}).map(([t, count]) => [`${t}_stats`, { count }])),
        apply_file_diff_stats: {
          count: u.tools?.apply_file_diff ?? 0,
          lines_added: u.lines?.[0] ?? 0,
          lines_removed: u.lines?.[1] ?? 0,
          files_changed: 1,
        },
      },
      context_window_segments: [],
    },
    ...(u.parent ? { parent_conversation_id: u.parent, agent_name: 'explorer' } : {}),
  });
}

/** A Warp state folder with its database, written as Warp's persistence writes it (upserts). */
function warpHome(root = join(tempDir(), 'warp-terminal')) {
  mkdirSync(root, { recursive: true });
  const path = join(root, 'warp.sqlite');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const file: SessionFile = { path, sessionId: 'warp' };
  return {
    root,
    file,
    db,
    conversation(id: string, modified: string, u: Usage) {
      db.prepare(
        `INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at) VALUES (?, ?, ?)
        ON CONFLICT (conversation_id) DO UPDATE SET conversation_data = excluded.conversation_data, last_modified_at = excluded.last_modified_at`,
      ).run(id, data(u), modified);
    },
    exchange(exchange: string, conversation: string, start: string, status: string, text = 'do it') {
      const input = text === '' ? '[]' : JSON.stringify([{ Query: { text, context: [], referenced_attachments: {} } }]);
      db.prepare(
        `INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (exchange_id) DO UPDATE SET output_status = excluded.output_status`,
      ).run(exchange, conversation, start, input, '/home/ada/src/app', JSON.stringify(status), MODEL);
    },
  };
}

/** The events of each session, one collector's dedupe keys shared by all. */
function reading() {
  const seen = new Set<string>();
  const sessions = new Map<string, ReturnType<typeof recorder>>();
  const eventsOf = (id: string) => (sessions.get(id) ?? sessions.set(id, recorder(seen)).get(id)!).events;
  return {
    read: (file: SessionFile, state: WarpState) => warp.readStore(file, state, eventsOf),
    log: (id: string): Recorded[] => sessions.get(id)?.log ?? [],
    clear: () => sessions.forEach((r) => (r.log.length = 0)),
  };
}

const counted = (log: Recorded[]) =>
  log
    .filter(([e]) => ['usage', 'prompt', 'turnStarted', 'turnEnded', 'toolCall', 'lines'].includes(e))
    .map(([e, a, b, , , cost, unsaid]) =>
      e === 'usage'
        ? [e, b, cost, unsaid]
        : e === 'turnStarted'
          ? [e]
          : [e, a, ...(e === 'lines' || e === 'turnEnded' ? [b] : [])],
    );
const restart = (state: WarpState) => JSON.parse(JSON.stringify(state)) as WarpState;
const utc = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);

describe('Warp reader', () => {
  it("counts what a conversation's running totals grew by, never less, across a restart", () => {
    const w = warpHome();
    const r = reading();
    let state = warp.initialState(w.file);
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Pending');
    w.conversation(PARENT, '2026-12-07 11:00:10', {
      cents: 10,
      tools: { run_command: 1, read_files: 1, apply_file_diff: 1 },
      lines: [5, 1],
    });
    expect(r.read(w.file, state)).toBe(true);
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
    // No tokens by type yet: only the cost, with no token type said (no series, never a 0).
    expect(counted(r.log(PARENT))).toEqual([
      ['turnStarted'],
      ['prompt', utc('2026-12-07 11:00:00')],
      ['usage', zero, 0.1, ['input', 'output', 'cache_read', 'cache_write', 'reasoning']],
      ['toolCall', `${PARENT}:run_command:1`],
      ['toolCall', `${PARENT}:read_files:1`],
      ['toolCall', `${PARENT}:apply_file_diff:1`],
      ['lines', 5, 1],
    ]);
    expect(eventsNamed(r.log(PARENT), 'toolCall').map(([, , call]) => call)).toEqual([
      { tool: 'run_command', kind: 'execute' },
      { tool: 'read_files', kind: 'read' },
      { tool: 'apply_file_diff', kind: 'edit' },
    ]);

    state = restart(state);
    r.clear();
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Completed');
    w.conversation(PARENT, '2026-12-07 11:01:00', {
      cents: 25,
      charged: [100, 20, 300, 50],
      tools: { run_command: 3, read_files: 1, apply_file_diff: 1 },
      lines: [8, 2],
    });
    r.read(w.file, state);
    expect(counted(r.log(PARENT))).toEqual([
      ['turnEnded', 'completed', utc('2026-12-07 11:01:00')],
      ['usage', { ...zero, input: 100, output: 20, cacheRead: 300, cacheWrite: 50 }, 0.15, ['reasoning']],
      ['toolCall', `${PARENT}:run_command:2`],
      ['toolCall', `${PARENT}:run_command:3`],
      ['lines', 3, 1],
    ]);

    // Rewritten lower (a total recomputed), then back: nothing counted until past what was.
    state = restart(state);
    r.clear();
    w.conversation(PARENT, '2026-12-07 11:02:00', {
      cents: 20,
      charged: [90, 20, 300, 50],
      tools: { run_command: 2 },
      lines: [6, 2],
    });
    r.read(w.file, state);
    w.conversation(PARENT, '2026-12-07 11:03:00', {
      cents: 25,
      charged: [100, 20, 300, 50],
      tools: { run_command: 3 },
      lines: [8, 2],
    });
    r.read(w.file, state);
    expect(counted(r.log(PARENT))).toEqual([]);
    // A counter of a tool not known here (a newer Warp's) counts as `other`.
    w.conversation(PARENT, '2026-12-07 11:04:00', {
      cents: 30,
      charged: [110, 25, 300, 50],
      tools: { run_command: 3, grep: 1, start_agent: 1 },
      lines: [8, 2],
    });
    r.read(w.file, state);
    expect(counted(r.log(PARENT))).toEqual([
      ['usage', { ...zero, input: 10, output: 5 }, expect.closeTo(0.05, 12), ['reasoning']],
      ['toolCall', `${PARENT}:grep:1`],
      ['toolCall', `${PARENT}:other:1`],
    ]);
    expect(eventsNamed(r.log(PARENT), 'toolCall').at(-1)?.[2]).toEqual({ tool: 'other', kind: 'other' });
  });

  it('exports no series of the per-model total Warp records unsplit, and a cost where it records one', async () => {
    const w = warpHome(join(tempDir(), '.local', 'state', 'warp-terminal'));
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Completed');
    w.conversation(PARENT, '2026-12-07 11:00:10', { cents: 40, warp: 123_456 });
    w.exchange('e2', CHILD, '2026-12-07 11:00:00', 'Completed');
    w.conversation(CHILD, '2026-12-07 11:00:10', { warp: 654_321 });
    w.db.close();
    const { store } = await readHome(warp, w.root);
    const counters = [...store.counters.values()];
    expect(
      counters.filter((c) => c.metric === 'tokens' || c.metric === 'reasoningTokens' || c.metric === 'unpricedTokens'),
    ).toEqual([]);
    expect(counters.filter((c) => c.metric === 'cost').map((c) => [c.labels.model, c.value])).toEqual([[MODEL, 0.4]]);
    expect(
      [...store.sessions.values()].map((s) => [
        s.id,
        s.tokens.input + s.tokens.output + s.tokens.cacheRead + s.tokens.cacheWrite,
      ]),
    ).toEqual([
      [PARENT, 0],
      [CHILD, 0],
    ]);
    // A finished turn with no tokens counted is what Warp records there, not a reader behind its format.
    expect([...store.sessions.values()].map((s) => [s.id, s.lastTurn?.outcome, drifted(s)])).toEqual([
      [PARENT, 'completed', false],
      [CHILD, 'completed', false],
    ]);
  });

  it("counts a subagent's query as its goal, not a prompt, also when it was written before its conversation; the parent counts the call that started it", () => {
    const w = warpHome();
    const r = reading();
    const state = warp.initialState(w.file);
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Pending');
    w.conversation(PARENT, '2026-12-07 11:00:05', { cents: 5 });
    w.exchange('e2', CHILD, '2026-12-07 11:00:06', 'Pending');
    r.read(w.file, state);
    expect(counted(r.log(CHILD))).toEqual([]);
    expect(state.pending).toEqual([1, 2]);
    w.conversation(CHILD, '2026-12-07 11:00:08', { cents: 2, parent: PARENT });
    r.read(w.file, state);
    expect(counted(r.log(CHILD))).toEqual([['turnStarted'], ['usage', expect.anything(), 0.02, expect.anything()]]);
    expect(eventsNamed(r.log(PARENT), 'toolCall')).toEqual([
      ['toolCall', `spawn:${CHILD}`, { tool: 'subagent', kind: 'agent' }],
    ]);
    expect(eventsNamed(r.log(PARENT), 'prompt')).toHaveLength(1);
    // Read again (a crash before the state was committed): nothing counted twice.
    r.clear();
    r.read(w.file, warp.initialState(w.file));
    expect([...counted(r.log(PARENT)), ...counted(r.log(CHILD))]).toEqual([]);
  });

  it('ends each exchange by its status; an exchange without a query is no turn', () => {
    const w = warpHome();
    const r = reading();
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Failed');
    w.exchange('e2', PARENT, '2026-12-07 11:01:00', 'Cancelled');
    w.exchange('e3', PARENT, '2026-12-07 11:02:00', 'Completed', '');
    w.exchange('e4', PARENT, '2026-12-07 11:03:00', 'Streaming');
    w.conversation(PARENT, '2026-12-07 11:04:00', {});
    r.read(w.file, warp.initialState(w.file));
    expect(counted(r.log(PARENT)).filter(([e]) => e !== 'usage')).toEqual([
      ['turnStarted'],
      ['prompt', utc('2026-12-07 11:00:00')],
      ['turnEnded', 'failed', utc('2026-12-07 11:00:00')],
      ['turnStarted'],
      ['prompt', utc('2026-12-07 11:01:00')],
      ['turnEnded', 'interrupted', utc('2026-12-07 11:01:00')],
    ]);
    expect(eventsNamed(r.log(PARENT), 'skipped')).toEqual([['skipped', 'unknown_shape']]);
  });

  it('skips a conversation whose data does not parse once, however often it is read again', () => {
    const w = warpHome();
    const r = reading();
    const state = warp.initialState(w.file);
    w.db
      .prepare(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at) VALUES (?, '{\"server_conv', '2026-12-07 11:00:00')",
      )
      .run(PARENT);
    r.read(w.file, state);
    r.read(w.file, { ...state, sig: undefined });
    expect(eventsNamed(r.log(PARENT), 'skipped')).toEqual([['skipped', 'parse_error']]);
  });

  it('skips a conversation, a query or a status whose JSON is too dense to parse (as a document would be), each counted once, and reads the rest exactly', () => {
    const w = warpHome();
    const r = reading();
    const state = warp.initialState(w.file);
    const dense = (col: string, exchange: string) =>
      w.db.prepare(`UPDATE ai_queries SET ${col} = ? WHERE exchange_id = ?`).run(denseJson(100_000), exchange);
    w.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Completed');
    w.exchange('e2', PARENT, '2026-12-07 11:00:01', 'Completed');
    dense('input', 'e2');
    w.exchange('e3', PARENT, '2026-12-07 11:00:02', 'Completed');
    dense('output_status', 'e3');
    w.conversation(PARENT, '2026-12-07 11:00:10', { cents: 10, tools: { run_command: 1 } });
    w.exchange('e4', CHILD, '2026-12-07 11:00:20', 'Completed');
    w.db
      .prepare(
        'INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at) VALUES (?, ?, ?)',
      )
      .run(CHILD, `{"conversation_usage_metadata":${denseJson(100_000)}}`, '2026-12-07 11:00:30');
    r.read(w.file, state);
    r.read(w.file, { ...state, sig: undefined });
    expect(eventsNamed(r.log(PARENT), 'skipped')).toEqual([
      ['skipped', 'file_too_large'],
      ['skipped', 'file_too_large'],
    ]);
    expect(eventsNamed(r.log(CHILD), 'skipped')).toEqual([['skipped', 'file_too_large']]);
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
    expect(counted(r.log(PARENT))).toEqual([
      ['turnStarted'],
      ['prompt', utc('2026-12-07 11:00:00')],
      ['turnEnded', 'completed', utc('2026-12-07 11:00:00')],
      ['usage', zero, 0.1, ['input', 'output', 'cache_read', 'cache_write', 'reasoning']],
      ['toolCall', `${PARENT}:run_command:1`],
    ]);
    // The exchange of the conversation skipped is read: its prompt (its data, which would name a
    // parent, unread), and its end when the conversation was last written (the row's time).
    expect(counted(r.log(CHILD))).toEqual([
      ['turnStarted'],
      ['prompt', utc('2026-12-07 11:00:20')],
      ['turnEnded', 'completed', utc('2026-12-07 11:00:30')],
    ]);
  });

  it('reads a database made anew (its ids from 1 again) from its start, counting no exchange twice', () => {
    const root = join(tempDir(), 'warp-terminal');
    const r = reading();
    const first = warpHome(root);
    first.exchange('e1', PARENT, '2026-12-07 11:00:00', 'Completed');
    first.exchange('e2', PARENT, '2026-12-07 11:01:00', 'Completed');
    first.conversation(PARENT, '2026-12-07 11:01:30', {});
    const state = warp.initialState(first.file);
    r.read(first.file, state);
    first.db.close();
    for (const f of ['warp.sqlite', 'warp.sqlite-wal', 'warp.sqlite-shm']) rmSync(join(root, f), { force: true });
    r.clear();
    const again = warpHome(root);
    again.exchange('e3', PARENT, '2026-12-07 11:05:00', 'Completed');
    again.conversation(PARENT, '2026-12-07 11:05:30', {});
    // The same size and time as before, to the millisecond: the file's identity still tells it changed.
    utimesSync(again.file.path, new Date(0), new Date(0));
    r.read(again.file, state);
    expect(eventsNamed(r.log(PARENT), 'prompt')).toEqual([['prompt', utc('2026-12-07 11:05:00')]]);
  });

  it("looks under $XDG_STATE_HOME, for the Preview channel too, and lists the TUI's database beside the terminal's", () => {
    expect(warp.defaultRoots({ XDG_STATE_HOME: '/x/state' }, '/home/ada').slice(0, 2)).toEqual([
      '/x/state/warp-terminal',
      '/x/state/warp-terminal-preview',
    ]);
    const w = warpHome();
    mkdirSync(join(w.root, 'tui'));
    const tui = new Database(join(w.root, 'tui', 'warp.sqlite'));
    tui.exec(SCHEMA);
    tui.close();
    expect(warp.listFiles(w.root).map((f) => [f.path, f.sessionId])).toEqual([
      [w.file.path, 'warp'],
      [join(w.root, 'tui', 'warp.sqlite'), 'warp-tui'],
    ]);
    expect(warp.watchFiles!(w.root)).toContain(join(w.root, 'tui', 'warp.sqlite-wal'));
  });
});
