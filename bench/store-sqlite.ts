// The Hermes, Kodelet, goose, Crush, Zed, Warp and Copilot CLI (`session-store.db`) readers in `npm run bench:store`: for each, a small seeded
// database with the harness's schema (copied from the test fixtures), read by a plain baseline
// that queries every row of every table and parses its JSON in Node, and by the exporter (cold,
// again with nothing changed, and after one more model call written while a writer holds the
// database in WAL mode). The output tokens (Crush: the cost) must equal what the generator wrote.
// Zed's threads are written as zstd frames of raw blocks (Node 20 has no zstd compressor): the
// decoder copies them rather than decoding Zed's level-3 frames, which takes a little longer.
//
//   BENCH_SQLITE_SESSIONS  sessions per database (default 2000)

import { Database } from '../test/helpers/sqlite.js';
import { FIXTURES } from './root.js';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng, Text } from './corpus.js';
import { crushSchema } from './crush-schema.js';
import { zstdFrame } from '../test/helpers/zstd.js';
import { unzstd } from '../src/readers/zstd.js';
import { mb, median, mismatches, row } from './report.js';
import { gc, newExporter, work } from './runs.js';
import type { Exporter } from '../src/exporter.js';

// The bench's writers and the exporter share one engine (src/files/sqlite.ts): where it is
// better-sqlite3, its first load sets SQLITE_USE_URI, which the exporter's `file:` URIs need.

const SESSIONS = Number(process.env.BENCH_SQLITE_SESSIONS ?? 2000);
const T0 = 1_790_000_000; // seconds

/** The tables and indexes of a fixture database (or of `tables` of it), created empty. */
function copySchema(db: Database, fixture: string, tables?: string[]): void {
  const from = new Database(join(FIXTURES, fixture), { readonly: true, fileMustExist: true });
  const only = tables ? `AND tbl_name IN (${tables.map((t) => `'${t}'`).join(', ')})` : '';
  const ddl = from
    .prepare(
      `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ${only} ORDER BY type = 'index'`,
    )
    .pluck()
    .all() as string[];
  from.close();
  for (const sql of ddl) db.exec(sql);
}

interface Corpus {
  harness: 'hermes' | 'kodelet' | 'goose' | 'crush' | 'zed' | 'warp' | 'copilot-cli';
  home: string;
  db: string;
  /** What the generator wrote: output tokens (Crush: cost in dollars). */
  expected: number;
  /** One more model call of `expected`'s unit `added`, written by the harness's writer. */
  call(db: Database): number;
}

/** A database at `path` in WAL mode, as the harnesses keep theirs. */
function open(path: string): Database {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  return db;
}

function hermes(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.hermes', 'state.db');
  const db = open(path);
  copySchema(db, 'homes/aider-cursor-antigravity-sqlite/.hermes/state.db');
  let expected = 0;
  const session =
    db.prepare(`INSERT INTO sessions (id, source, model, started_at, last_activity_at, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, cwd, estimated_cost_usd) VALUES (?, 'cli', 'claude-opus-4-6', ?, ?, ?, ?, ?, ?, ?, '/home/dev/src/app', ?)`);
  const message = db.prepare(
    'INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp, finish_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = `s${s}`;
      const t = T0 + s * 60;
      const output = rng.int(100, 5000);
      expected += output;
      session.run(id, t, t + 50, rng.int(100, 9000), output, rng.int(0, 50_000), rng.int(0, 5000), 0, 0.01);
      for (let turn = 0; turn < 3; turn++) {
        message.run(id, 'user', text.code(rng.logUniform(30, 2000)), null, null, null, t + turn * 10, null);
        const call = `call_${s}_${turn}`;
        message.run(
          id,
          'assistant',
          '',
          JSON.stringify([
            { id: call, type: 'function', function: { name: 'terminal', arguments: '{"command":"npm test"}' } },
          ]),
          null,
          null,
          t + turn * 10 + 2,
          'tool_calls',
        );
        message.run(
          id,
          'tool',
          text.code(rng.logUniform(200, 20_000)),
          null,
          call,
          'terminal',
          t + turn * 10 + 4,
          null,
        );
        message.run(id, 'assistant', text.code(rng.logUniform(50, 3000)), null, null, null, t + turn * 10 + 6, 'stop');
      }
    }
  })();
  db.close();
  return {
    harness: 'hermes',
    home,
    db: path,
    expected,
    call: (w) => {
      w.prepare("UPDATE sessions SET output_tokens = output_tokens + 1000, last_activity_at = ? WHERE id = 's0'").run(
        T0 + SESSIONS * 60,
      );
      w.prepare(
        "INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES ('s0', 'assistant', 'more', ?, 'stop')",
      ).run(T0 + SESSIONS * 60);
      return 1000;
    },
  };
}

const goTime = (s: number) =>
  `${new Date(s * 1000).toISOString().replace('T', ' ').replace('Z', '')}000000 +0000 UTC m=+1.5`;

function kodelet(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.kodelet', 'storage.db');
  const db = open(path);
  copySchema(db, 'homes/aider-cursor-antigravity-sqlite/.kodelet/storage.db');
  let expected = 0;
  const usage = (output: number) =>
    JSON.stringify({
      inputTokens: 5000,
      outputTokens: output,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 1000,
      inputCost: 0.01,
      outputCost: output / 1e5,
      cacheCreationCost: 0,
      cacheReadCost: 0,
      currentContextWindow: 6000,
      maxContextWindow: 200_000,
    });
  const insert =
    db.prepare(`INSERT INTO conversations (id, raw_messages, provider, usage, created_at, updated_at, metadata, tool_results, cwd)
    VALUES (?, ?, 'anthropic', ?, ?, ?, '{"model":"claude-sonnet-4-5-20250929"}', '{}', '/home/dev/src/app')`);
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const output = rng.int(100, 5000);
      expected += output;
      const messages = [];
      for (let turn = 0; turn < 3; turn++) {
        const id = `toolu_${s}_${turn}`;
        messages.push(
          { role: 'user', content: [{ type: 'text', text: text.code(rng.logUniform(30, 2000)) }] },
          { role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { command: 'go test' } }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: id,
                content: [{ type: 'text', text: text.code(rng.logUniform(200, 20_000)) }],
              },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: text.code(rng.logUniform(50, 3000)) }] },
        );
      }
      insert.run(`c${s}`, JSON.stringify(messages), usage(output), goTime(T0 + s * 60), goTime(T0 + s * 60 + 50));
    }
  })();
  db.close();
  return {
    harness: 'kodelet',
    home,
    db: path,
    expected,
    call: (w) => {
      const u = JSON.parse(w.prepare("SELECT usage FROM conversations WHERE id = 'c0'").pluck().get() as string) as {
        outputTokens: number;
      };
      u.outputTokens += 1000;
      w.prepare("UPDATE conversations SET usage = ?, updated_at = ? WHERE id = 'c0'").run(
        JSON.stringify(u),
        goTime(T0 + SESSIONS * 60),
      );
      return 1000;
    },
  };
}

function goose(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
  const db = open(path);
  copySchema(db, 'homes/aider-cursor-antigravity-sqlite/.local/share/goose/sessions/sessions.db');
  let expected = 0;
  const stamp = (s: number) => new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const session =
    db.prepare(`INSERT INTO sessions (id, working_dir, created_at, updated_at, total_tokens, accumulated_input_tokens, accumulated_output_tokens,
    model_config_json) VALUES (?, '/home/dev/src/app', ?, ?, 5000, 0, 0, '{"model_name":"gpt-4o","context_limit":128000}')`);
  const call =
    db.prepare(`INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens,
    cache_write_tokens, cost, cost_source, is_compaction) VALUES (?, ?, 'gpt-4o', ?, ?, 0, ?, 0, 0.01, 'estimated', 0)`);
  const message = db.prepare(
    'INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, \'{"userVisible":true}\')',
  );
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = `2026_${s}`;
      const t = T0 + s * 60;
      session.run(id, stamp(t), stamp(t + 50));
      for (let turn = 0; turn < 3; turn++) {
        const tool = `toolu_${s}_${turn}`;
        message.run(
          `m${s}_${turn}_u`,
          id,
          'user',
          JSON.stringify([{ type: 'text', text: text.code(rng.logUniform(30, 2000)) }]),
          t + turn * 10,
        );
        message.run(
          `m${s}_${turn}_a`,
          id,
          'assistant',
          JSON.stringify([
            {
              type: 'toolRequest',
              id: tool,
              toolCall: { status: 'success', value: { name: 'developer__shell', arguments: {} } },
            },
          ]),
          t + turn * 10 + 2,
        );
        message.run(
          `m${s}_${turn}_r`,
          id,
          'user',
          JSON.stringify([
            {
              type: 'toolResponse',
              id: tool,
              toolResult: {
                status: 'success',
                value: { content: [{ type: 'text', text: text.code(rng.logUniform(200, 20_000)) }], isError: false },
              },
            },
          ]),
          t + turn * 10 + 4,
        );
        message.run(
          `m${s}_${turn}_f`,
          id,
          'assistant',
          JSON.stringify([{ type: 'text', text: text.code(rng.logUniform(50, 3000)) }]),
          t + turn * 10 + 6,
        );
        for (const at of [2, 6]) {
          const output = rng.int(50, 2000);
          expected += output;
          call.run(id, t + turn * 10 + at, rng.int(1000, 20_000), output, rng.int(0, 500));
        }
      }
    }
  })();
  db.close();
  return {
    harness: 'goose',
    home,
    db: path,
    expected,
    call: (w) => {
      w.prepare(
        `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost,
        cost_source, is_compaction) VALUES ('2026_0', ?, 'gpt-4o', 10, 1000, 1010, 0, 0, 0.01, 'estimated', 0)`,
      ).run(T0 + SESSIONS * 60);
      return 1000;
    },
  };
}

function crush(home: string, rng: Rng, text: Text): Corpus {
  const project = join(home, 'src', 'app');
  const path = join(project, '.crush', 'crush.db');
  const db = open(path);
  crushSchema(db);
  mkdirSync(join(home, '.local', 'share', 'crush'), { recursive: true });
  writeFileSync(
    join(home, '.local', 'share', 'crush', 'projects.json'),
    JSON.stringify({ projects: [{ path: project, data_dir: '.crush' }] }),
  );
  let expected = 0;
  const session = db.prepare(
    `INSERT INTO sessions (id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at) VALUES (?, 'A session', 5000, 300, ?, ?, ?)`,
  );
  const message = db.prepare(
    `INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, 'claude-sonnet-4-5', 'anthropic', ?, ?, ?)`,
  );
  const part = (type: string, data: object) => ({ type, data });
  // Crush's triggers stamp a session with the clock whenever a message is added: written in one go,
  // every session would look updated now. They are set aside while the history is written.
  const triggers = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sessions'")
    .pluck()
    .all() as string[];
  db.exec('DROP TRIGGER update_sessions_updated_at');
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = `s${s}`;
      const t = T0 + s * 60;
      // Costs in whole hundredths of a cent: their sum is exact in floating point.
      const cost = rng.int(1, 500) / 10_000;
      expected += cost;
      session.run(id, cost, t + 50, t);
      for (let turn = 0; turn < 3; turn++) {
        const tool = `${id}_${turn}`;
        const at = t + turn * 10;
        message.run(
          `${tool}_u`,
          id,
          'user',
          JSON.stringify([
            part('text', { text: text.code(rng.logUniform(30, 2000)) }),
            part('finish', { reason: 'stop', time: at }),
          ]),
          at,
          at,
          at,
        );
        message.run(
          `${tool}_a`,
          id,
          'assistant',
          JSON.stringify([
            part('tool_call', { id: tool, name: 'bash', input: '{}', finished: true }),
            part('finish', { reason: 'tool_use', time: at + 2 }),
          ]),
          at + 2,
          at + 2,
          at + 2,
        );
        message.run(
          `${tool}_r`,
          id,
          'tool',
          JSON.stringify([
            part('tool_result', {
              tool_call_id: tool,
              name: 'bash',
              content: text.code(rng.logUniform(200, 20_000)),
              is_error: false,
            }),
            part('finish', { reason: 'stop', time: at + 4 }),
          ]),
          at + 4,
          at + 4,
          at + 4,
        );
        message.run(
          `${tool}_f`,
          id,
          'assistant',
          JSON.stringify([
            part('text', { text: text.code(rng.logUniform(50, 3000)) }),
            part('finish', { reason: 'end_turn', time: at + 6 }),
          ]),
          at + 6,
          at + 6,
          at + 6,
        );
      }
    }
  })();
  for (const sql of triggers) db.exec(sql);
  db.close();
  return {
    harness: 'crush',
    home,
    db: path,
    expected,
    call: (w) => {
      w.prepare("UPDATE sessions SET cost = cost + 0.01 WHERE id = 's0'").run();
      w.prepare("UPDATE sessions SET updated_at = ? WHERE id = 's0'").run(T0 + SESSIONS * 60);
      return 0.01;
    },
  };
}

function zed(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.local', 'share', 'zed', 'threads', 'threads.db');
  const db = open(path);
  copySchema(db, 'homes/editor-stores-and-clis/.local/share/zed/threads/threads.db');
  let expected = 0;
  // chrono's `to_rfc3339`, as Zed stamps its rows.
  const stamp = (s: number) => new Date(s * 1000).toISOString().replace('Z', '+00:00');
  const data = (thread: object) => zstdFrame([Buffer.from(JSON.stringify(thread))]);
  const insert =
    db.prepare(`INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, folder_paths_order, created_at)
    VALUES (?, 'A thread', ?, 'zstd', ?, NULL, '/home/dev/src/app', '0', ?)`);
  let first: { cumulative_token_usage: { output_tokens: number } } | undefined;
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const output = rng.int(100, 5000);
      expected += output;
      const messages = [];
      for (let turn = 0; turn < 3; turn++) {
        const id = `toolu_${s}_${turn}`;
        messages.push(
          { User: { id: `u${s}_${turn}`, content: [{ Text: text.code(rng.logUniform(30, 2000)) }] } },
          {
            Agent: {
              content: [
                {
                  ToolUse: {
                    id,
                    name: 'terminal',
                    raw_input: '{"command":"cargo test"}',
                    input: { command: 'cargo test' },
                    is_input_complete: true,
                  },
                },
                { Text: text.code(rng.logUniform(50, 3000)) },
              ],
              tool_results: {
                [id]: {
                  tool_use_id: id,
                  tool_name: 'terminal',
                  is_error: false,
                  content: [{ Text: text.code(rng.logUniform(200, 20_000)) }],
                },
              },
            },
          },
        );
      }
      const thread = {
        version: '0.3.0',
        title: 'A thread',
        messages,
        cumulative_token_usage: { input_tokens: 5000, output_tokens: output, cache_read_input_tokens: 1000 },
        request_token_usage: {},
        model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      };
      first ??= thread;
      insert.run(`t${s}`, stamp(T0 + s * 60 + 50), data(thread), stamp(T0 + s * 60));
    }
  })();
  db.close();
  return {
    harness: 'zed',
    home,
    db: path,
    expected,
    call: (w) => {
      first!.cumulative_token_usage.output_tokens += 1000;
      w.prepare("UPDATE threads SET data = ?, updated_at = ? WHERE id = 't0'").run(
        data(first!),
        stamp(T0 + SESSIONS * 60),
      );
      return 1000;
    },
  };
}

// Warp keeps at most 200 conversations and 10 000 exchanges (ai_queries): a database that is full.
const WARP_CONVERSATIONS = 200;
const WARP_EXCHANGES = 50;

function warp(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.local', 'state', 'warp-terminal', 'warp.sqlite');
  const db = open(path);
  copySchema(db, 'homes/editor-stores-and-clis/.local/state/warp-terminal/warp.sqlite');
  let expected = 0;
  const stamp = (s: number) => new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const data = (output: number, calls: number) =>
    JSON.stringify({
      server_conversation_token: 'tok',
      conversation_usage_metadata: {
        was_summarized: false,
        context_window_usage: 0.3,
        credits_spent: 12.5,
        total_provider_cost_in_cents: output / 100,
        total_charged_usage: {
          input_tokens: 3000,
          output_tokens: output,
          input_cache_read_tokens: 40_000,
          input_cache_write_tokens: 5000,
        },
        token_usage: [
          { model_id: 'claude-4-sonnet', warp_tokens: 48_000 + output, byok_tokens: 0, custom_endpoint_tokens: 0 },
        ],
        tool_usage_metadata: {
          run_command_stats: { count: calls, commands_executed: calls },
          apply_file_diff_stats: { count: 1, lines_added: 5, lines_removed: 1, files_changed: 1 },
        },
      },
    });
  const conversation = db.prepare(
    'INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at) VALUES (?, ?, ?)',
  );
  const exchange =
    db.prepare(`INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id)
    VALUES (?, ?, ?, ?, '/home/dev/src/app', '"Completed"', 'claude-4-sonnet')`);
  db.transaction(() => {
    for (let c = 0; c < WARP_CONVERSATIONS; c++) {
      const t = T0 + c * 3600;
      for (let e = 0; e < WARP_EXCHANGES; e++) {
        exchange.run(
          `x${c}_${e}`,
          `c${c}`,
          stamp(t + e * 60),
          JSON.stringify([
            { Query: { text: text.code(rng.logUniform(30, 2000)), context: [], referenced_attachments: {} } },
          ]),
        );
      }
      const output = rng.int(1000, 50_000);
      expected += output;
      conversation.run(`c${c}`, data(output, rng.int(0, 200)), stamp(t + WARP_EXCHANGES * 60));
    }
  })();
  db.close();
  return {
    harness: 'warp',
    home,
    db: path,
    expected,
    call: (w) => {
      const row = w
        .prepare("SELECT conversation_data FROM agent_conversations WHERE conversation_id = 'c0'")
        .pluck()
        .get() as string;
      const d = JSON.parse(row) as { conversation_usage_metadata: { total_charged_usage: { output_tokens: number } } };
      d.conversation_usage_metadata.total_charged_usage.output_tokens += 1000;
      const t = stamp(T0 + WARP_CONVERSATIONS * 3600);
      w.prepare(
        `INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id)
        VALUES ('x0_more', 'c0', ?, '[{"Query":{"text":"more"}}]', '/home/dev/src/app', '"Completed"', 'claude-4-sonnet')`,
      ).run(t);
      w.prepare(
        "UPDATE agent_conversations SET conversation_data = ?, last_modified_at = ? WHERE conversation_id = 'c0'",
      ).run(JSON.stringify(d), t);
      return 1000;
    },
  };
}

/**
 * Copilot CLI: the store of the CLI's own capture (1.0.102), ten calls a session, and each
 * session's events.jsonl as a CLI without usage records writes it (each answer's output, the run's
 * totals at its end): every call counted once, from the store's row or the log's answer.
 */
function copilot(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.copilot');
  const path = join(root, 'session-store.db');
  const db = open(path);
  copySchema(db, 'captures/copilot-cli/tool/.copilot/session-store.db', [
    'schema_version',
    'sessions',
    'assistant_usage_events',
  ]);
  db.exec('INSERT INTO schema_version VALUES (8)');
  let expected = 0;
  const session = db.prepare(
    "INSERT INTO sessions (id, cwd, branch, created_at, updated_at) VALUES (?, '/home/dev/src/app', 'main', ?, ?)",
  );
  const call =
    db.prepare(`INSERT INTO assistant_usage_events (session_id, turn_index, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
    reasoning_tokens, total_nano_aiu, request_multiplier, initiator, finish_reason, created_at) VALUES (?, ?, 'gpt-4.1', ?, ?, ?, ?, 0, 0, 1, ?, ?, ?)`);
  const iso = (s: number) => new Date(s * 1000).toISOString();
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = `00000000-0000-4000-8000-${String(s).padStart(12, '0')}`;
      const t = T0 + s * 60;
      session.run(id, iso(t), iso(t + 50));
      const event = (at: number, type: string, data: object) =>
        JSON.stringify({ type, data, id: `${id}-${at}`, timestamp: iso(t + at), parentId: null });
      const lines = [
        event(0, 'session.start', {
          sessionId: id,
          selectedModel: 'gpt-4.1',
          context: { cwd: '/home/dev/src/app', branch: 'main' },
        }),
        event(1, 'user.message', { content: text.code(rng.logUniform(30, 2000)), source: 'user', delivery: 'idle' }),
      ];
      const sum = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
      for (let i = 0; i < 10; i++) {
        const [input, output, cacheRead] = [rng.int(5000, 60_000), rng.int(20, 3000), rng.int(0, 4000)];
        // Every type: input_tokens holds the cache reads.
        expected += input + output;
        sum.inputTokens += input;
        sum.outputTokens += output;
        sum.cacheReadTokens += cacheRead;
        call.run(
          id,
          0,
          input,
          output,
          cacheRead,
          0,
          i === 0 ? 'user' : 'agent',
          i === 9 ? 'stop' : 'tool_calls',
          iso(t + 2 + i),
        );
        lines.push(
          event(2 + i, 'assistant.message', {
            messageId: `m${i}`,
            content: text.code(rng.logUniform(50, 3000)),
            toolRequests: [],
            outputTokens: output,
            model: 'gpt-4.1',
          }),
        );
      }
      lines.push(
        event(20, 'session.shutdown', {
          shutdownType: 'routine',
          modelMetrics: { 'gpt-4.1': { requests: { count: 10, cost: 1 }, usage: sum } },
        }),
      );
      mkdirSync(join(root, 'session-state', id), { recursive: true });
      writeFileSync(join(root, 'session-state', id, 'events.jsonl'), `${lines.join('\n')}\n`);
    }
  })();
  db.close();
  return {
    harness: 'copilot-cli',
    home,
    db: path,
    expected,
    call: (w) => {
      w.prepare(
        `INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, created_at)
        VALUES ('00000000-0000-4000-8000-000000000000', 'gpt-4.1', 9000, 1000, 0, 0, 0, ?)`,
      ).run(iso(T0 + SESSIONS * 60));
      return 10_000;
    },
  };
}

// The columns holding JSON, by harness.
const JSON_COLUMNS: Record<Corpus['harness'], string[]> = {
  hermes: ['tool_calls', 'model_config'],
  kodelet: ['raw_messages', 'usage', 'metadata', 'tool_results'],
  goose: ['content_json', 'metadata_json', 'model_config_json', 'extension_data'],
  crush: ['parts'],
  zed: [],
  warp: ['conversation_data', 'input', 'output_status'],
  'copilot-cli': [],
};

/** The plain way: every row of every table into Node, every JSON column parsed, the totals summed. */
function baseline(c: Corpus): number {
  const db = new Database(c.db, { readonly: true, fileMustExist: true });
  let total = 0;
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[];
    for (const t of tables) {
      for (const r of db.prepare(`SELECT * FROM ${t}`).iterate() as Iterable<Record<string, unknown>>) {
        for (const col of JSON_COLUMNS[c.harness]) if (typeof r[col] === 'string') JSON.parse(r[col]);
        if (c.harness === 'hermes' && t === 'sessions') total += r.output_tokens as number;
        if (c.harness === 'kodelet' && t === 'conversations')
          total += (JSON.parse(r.usage as string) as { outputTokens: number }).outputTokens;
        if (c.harness === 'goose' && t === 'usage_ledger') total += r.output_tokens as number;
        if (c.harness === 'crush' && t === 'sessions') total += r.cost as number;
        if (c.harness === 'zed' && t === 'threads') {
          const json = unzstd(r.data as Buffer, 32 << 20);
          total += (JSON.parse(json.toString()) as { cumulative_token_usage: { output_tokens: number } })
            .cumulative_token_usage.output_tokens;
        }
        if (c.harness === 'warp' && t === 'agent_conversations') {
          total += (
            JSON.parse(r.conversation_data as string) as {
              conversation_usage_metadata: { total_charged_usage: { output_tokens: number } };
            }
          ).conversation_usage_metadata.total_charged_usage.output_tokens;
        }
        if (c.harness === 'copilot-cli' && t === 'assistant_usage_events')
          total += (r.input_tokens as number) + (r.output_tokens as number);
      }
    }
  } finally {
    db.close();
  }
  return total;
}

/** The exporter's figure for a corpus: its output tokens (Crush: its cost; Copilot CLI: its tokens of every type). */
function exported(agent: Exporter, c: Corpus): number {
  const metric = c.harness === 'crush' ? 'cost' : 'tokens';
  const every = c.harness === 'crush' || c.harness === 'copilot-cli';
  return [...agent.store.counters.values()]
    .filter((k) => k.metric === metric && k.labels.harness === c.harness && (every || k.labels.token_type === 'output'))
    .reduce((a, k) => a + k.value, 0);
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const same = (a: number, b: number) => Math.abs(a - b) < 1e-6;

export async function benchSqliteStores(seed: number): Promise<void> {
  for (const make of [hermes, kodelet, goose, crush, zed, warp, copilot]) {
    const rng = new Rng(seed);
    const home = join(work, `sqlite-${make.name}`);
    const c = make(home, rng, new Text(rng));
    const unit = c.harness === 'crush' ? 'cost' : c.harness === 'copilot-cli' ? 'tokens' : 'output tokens';
    const sessions =
      c.harness === 'warp'
        ? `${WARP_CONVERSATIONS} conversations, ${WARP_CONVERSATIONS * WARP_EXCHANGES} exchanges`
        : `${SESSIONS} sessions`;
    row(`${c.harness}: database`, `${mb(statSync(c.db).size)}: ${sessions}`);
    readFileSync(c.db); // into the page cache for both contenders

    gc();
    let t = performance.now();
    const base = baseline(c);
    const baseMs = performance.now() - t;
    const agent = newExporter(join(work, `state-sqlite-${c.harness}`), c.home);
    gc();
    t = performance.now();
    await agent.scanAll();
    const coldMs = performance.now() - t;
    const exact = same(base, c.expected) && same(exported(agent, c), c.expected);
    if (!exact)
      mismatches.push(`${c.harness} ${unit}: expected ${c.expected}, baseline ${base}, exporter ${exported(agent, c)}`);
    row(
      `${c.harness}: baseline, every row queried and its JSON parsed`,
      ms(baseMs),
      `${unit} exact`,
      same(base, c.expected),
    );
    row(
      `${c.harness}: exporter cold read`,
      `${ms(coldMs)} (${(baseMs / coldMs).toFixed(1)}x the baseline's speed)`,
      `${unit} exact`,
      exact,
    );

    // Nothing changed: the store's signature says so without opening it (after the settling time
    // of a store changed within the last seconds).
    const rescans: number[] = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      await agent.scanAll();
      rescans.push(performance.now() - t);
    }
    row(`${c.harness}: rescan, nothing changed (median of 5)`, ms(median(rescans)));

    const writer = new Database(c.db);
    writer.pragma('journal_mode = WAL');
    try {
      const before = exported(agent, c);
      const added = c.call(writer);
      t = performance.now();
      await agent.scanAll();
      const readMs = performance.now() - t;
      const ok = same(exported(agent, c) - before, added);
      if (!ok) mismatches.push(`${c.harness}: a new call of ${added} counted as ${exported(agent, c) - before}`);
      row(`${c.harness}: read after a new call, a writer attached`, ms(readMs), 'exact', ok);
    } finally {
      writer.close();
      await agent.stop();
    }
  }
}
