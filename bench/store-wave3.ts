// The readers of Cline (its VS Code extension's tasks and its CLI), Roo Code, Kilo Code's
// extension tasks, Continue CLI, Kimi CLI, OpenClaw, Amp, Auggie and Junie (and of the fourth wave,
// TRAE CLI, Grok Build, OpenHands and Copilot Chat in VS Code) in `npm run
// bench:store`: for each, a seeded HOME holding only that harness's files in its format (as the
// fixtures and captures have them, test/fixtures/homes/vscode-extensions-and-clis and test/fixtures/captures), read by
// a plain baseline that parses everything (every JSON document whole, every line of a JSONL file,
// every transcript row of OpenClaw's database, decompressed where it is zstd) and by the exporter:
// cold, again with nothing changed, and after one more model call (a document rewritten whole, a
// line appended, a row inserted while a writer holds the database). The output tokens must equal
// what the generator wrote.
//
//   BENCH_WAVE3_SESSIONS  sessions per harness (default 500)

import { Database } from '../test/helpers/sqlite.js';
import { decompress } from 'fzstd';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Exporter } from '../src/exporter.js';
import type { HarnessId } from '../src/session/types.js';
import { Rng, Text } from './corpus.js';
import { mb, median, mismatches, row } from './report.js';
import { FIXTURES } from './root.js';
import { gc, newExporter, work } from './runs.js';
import { AGENT_TRACES_SCHEMA } from '../test/helpers/copilot-vscode.js';

const SESSIONS = Number(process.env.BENCH_WAVE3_SESSIONS ?? 500);
const T0 = 1_790_000_000_000; // ms
const TURNS = 3;
const MODEL = 'claude-sonnet-4-5';
const CWD = '/home/dev/src/app';
/** The output tokens of the one more call each corpus's `call` writes. */
const ADDED = 1000;

interface Corpus {
  /** The bench line's name. */
  name: string;
  harness: HarnessId;
  home: string;
  /** The output tokens the generator wrote. */
  expected: number;
  /** The output tokens one parsed value holds (a document, a line, an event), for the baseline. */
  outputOf(value: unknown): number;
  /** Writes one more model call of ADDED output tokens as the harness would. */
  call(): void;
}

/** One request's counts. */
interface Req {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What every generator writes per session: TURNS turns of a prompt, a command and its output, and an answer; two requests each. */
interface Turn {
  prompt: string;
  toolOutput: string;
  answer: string;
  reqs: [Req, Req];
}

function turnsOf(rng: Rng, text: Text): Turn[] {
  const req = (): Req => ({
    input: rng.int(100, 5000),
    output: rng.int(50, 2000),
    cacheRead: rng.int(0, 20_000),
    cacheWrite: rng.int(0, 2000),
  });
  return Array.from({ length: TURNS }, () => ({
    prompt: text.code(rng.logUniform(30, 2000)),
    toolOutput: text.code(rng.logUniform(200, 20_000)),
    answer: text.code(rng.logUniform(50, 3000)),
    reqs: [req(), req()],
  }));
}

const outputs = (turns: Turn[]) => turns.reduce((n, t) => n + t.reqs[0].output + t.reqs[1].output, 0);
const json = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
};
const iso = (ms: number) => new Date(ms).toISOString();
/** A value's members, if it is an object. */
const o = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const n = (v: unknown) => (typeof v === 'number' ? v : 0);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// ---- the VS Code extensions' tasks (Cline, Roo Code, Kilo Code) -------------------------------

interface Family {
  harness: HarnessId;
  extension: string;
  wholePrompt: boolean;
}

function extensionTasks(name: string, f: Family, home: string, rng: Rng, text: Text): Corpus {
  const storage = join(home, '.config', 'Code', 'User', 'globalStorage', f.extension);
  let expected = 0;
  const history: object[] = [];
  let first: { path: string; messages: object[]; at: number } | undefined;
  const request = (at: number, r: Req) => ({
    ts: at,
    type: 'say',
    say: 'api_req_started',
    // Roo and Kilo's `tokensIn` is the whole prompt, Cline's (with Anthropic) the uncached remainder.
    text: JSON.stringify({
      request: 'npm test',
      tokensIn: f.wholePrompt ? r.input + r.cacheRead + r.cacheWrite : r.input,
      tokensOut: r.output,
      cacheReads: r.cacheRead,
      cacheWrites: r.cacheWrite,
      cost: 0.01,
    }),
    ...(f.wholePrompt ? {} : { modelInfo: { modelId: MODEL, providerId: 'anthropic', mode: 'act' } }),
  });
  for (let s = 0; s < SESSIONS; s++) {
    const start = T0 + s * 60_000;
    const id = f.wholePrompt ? rng.uuid() : String(start);
    const dir = join(storage, 'tasks', id);
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = start;
    const messages: object[] = [];
    const conversation: object[] = [];
    turns.forEach((t, k) => {
      messages.push(
        k === 0
          ? { ts: at, type: 'say', say: 'task', text: t.prompt }
          : { ts: (at += 1000), type: 'say', say: 'user_feedback', text: t.prompt },
      );
      messages.push(
        request((at += 1000), t.reqs[0]),
        { ts: (at += 1000), type: 'ask', ask: 'command', text: 'npm test' },
        { ts: (at += 1000), type: 'say', say: 'command_output', text: t.toolOutput },
        request((at += 1000), t.reqs[1]),
        { ts: (at += 1000), type: 'say', say: 'text', text: t.answer },
        { ts: (at += 1000), type: 'ask', ask: 'completion_result', text: '' },
      );
      const tool = `toolu_${s}_${k}`;
      conversation.push(
        {
          role: 'user',
          content: [
            { type: 'text', text: `<task>${t.prompt}</task>` },
            { type: 'text', text: `<environment_details><model>${MODEL}</model></environment_details>` },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: tool, name: 'execute_command', input: { command: 'npm test' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool, content: t.toolOutput }] },
        { role: 'assistant', content: [{ type: 'text', text: t.answer }] },
      );
    });
    json(join(dir, 'ui_messages.json'), messages);
    json(join(dir, 'api_conversation_history.json'), conversation);
    if (f.wholePrompt)
      json(join(dir, 'history_item.json'), {
        id,
        ts: at,
        task: 'x',
        workspace: CWD,
        tokensIn: 0,
        tokensOut: 0,
        totalCost: 0,
      });
    else history.push({ id, ts: at, task: 'x', cwdOnTaskInitialization: CWD, tokensIn: 0, tokensOut: 0, totalCost: 0 });
    if (s === 0) first = { path: join(dir, 'ui_messages.json'), messages, at };
  }
  if (!f.wholePrompt) json(join(storage, 'state', 'taskHistory.json'), history);
  return {
    name,
    harness: f.harness,
    home,
    expected,
    outputOf: (v) =>
      list(v).reduce<number>((sum, m) => {
        const r = o(m);
        return (
          sum + (r.say === 'api_req_started' && typeof r.text === 'string' ? n(o(JSON.parse(r.text)).tokensOut) : 0)
        );
      }, 0),
    call: () => {
      const t = first!;
      t.messages.push(request((t.at += 1000), { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }));
      json(t.path, t.messages);
    },
  };
}

// ---- Cline CLI 3.x ------------------------------------------------------------------------------

function clineCli(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.cline', 'data', 'sessions');
  let expected = 0;
  let first: { path: string; doc: { messages: object[] }; at: number } | undefined;
  const answer = (id: string, at: number, r: Req, content: object[]) => ({
    id,
    role: 'assistant',
    content,
    ts: at,
    modelInfo: { id: MODEL, provider: 'anthropic' },
    metrics: {
      inputTokens: r.input + r.cacheRead + r.cacheWrite,
      outputTokens: r.output,
      cacheReadTokens: r.cacheRead,
      cacheWriteTokens: r.cacheWrite,
    },
  });
  for (let s = 0; s < SESSIONS; s++) {
    const start = T0 + s * 60_000;
    const id = `${start}_${rng.hex(5)}`;
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = start;
    const messages: object[] = [];
    turns.forEach((t, k) => {
      const call = `call_${s}_${k}`;
      messages.push(
        {
          id: rng.uuid(),
          role: 'user',
          content: [{ type: 'text', text: `<user_input mode="act">${t.prompt}</user_input>` }],
          ts: (at += 1000),
        },
        answer(`msg_${s}_${k}_a`, (at += 1000), t.reqs[0], [
          { type: 'tool_use', id: call, name: 'run_commands', input: { commands: ['npm test'] } },
        ]),
        {
          id: rng.uuid(),
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: call,
              name: 'run_commands',
              content: [{ query: 'npm test', result: t.toolOutput, success: true }],
            },
          ],
          ts: (at += 1000),
        },
        answer(`msg_${s}_${k}_b`, (at += 1000), t.reqs[1], [{ type: 'text', text: t.answer }]),
      );
    });
    const doc = { version: 1, updated_at: iso(at), agent: 'lead', sessionId: id, messages };
    json(join(root, id, `${id}.json`), {
      version: 1,
      session_id: id,
      source: 'cli',
      pid: 10_000 + s,
      started_at: iso(start),
      ended_at: iso(at + 100),
      exit_code: 0,
      status: 'completed',
      interactive: false,
      provider: 'anthropic',
      model: MODEL,
      cwd: CWD,
      workspace_root: CWD,
      metadata: { git: { branch: 'main' }, title: 'x' },
    });
    json(join(root, id, `${id}.messages.json`), doc);
    if (s === 0) first = { path: join(root, id, `${id}.messages.json`), doc, at };
  }
  return {
    name: 'cline (CLI)',
    harness: 'cline',
    home,
    expected,
    outputOf: (v) => list(o(v).messages).reduce<number>((sum, m) => sum + n(o(o(m).metrics).outputTokens), 0),
    call: () => {
      const t = first!;
      t.doc.messages.push(
        answer('msg_bench', (t.at += 1000), { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }, [
          { type: 'text', text: 'more' },
        ]),
      );
      json(t.path, t.doc);
    },
  };
}

// ---- Continue CLI -------------------------------------------------------------------------------

function continueCli(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.continue', 'sessions');
  let expected = 0;
  let first: { path: string; doc: { history: object[] } } | undefined;
  const usage = (r: Req) => ({
    prompt_tokens: r.input + r.cacheRead + r.cacheWrite,
    completion_tokens: r.output,
    total_tokens: r.input + r.cacheRead + r.cacheWrite + r.output,
    prompt_tokens_details: { cached_tokens: r.cacheRead, cache_write_tokens: r.cacheWrite },
    model: MODEL,
  });
  for (let s = 0; s < SESSIONS; s++) {
    const id = rng.uuid();
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    const history: object[] = [];
    turns.forEach((t, k) => {
      const call = {
        id: `call_${s}_${k}`,
        type: 'function',
        function: { name: 'Bash', arguments: '{"command":"npm test"}' },
      };
      history.push(
        { message: { role: 'user', content: t.prompt }, contextItems: [] },
        {
          message: { role: 'assistant', content: 'I will run the tests.', toolCalls: [call], usage: usage(t.reqs[0]) },
          contextItems: [],
          toolCallStates: [
            {
              toolCallId: call.id,
              toolCall: call,
              status: 'done',
              parsedArgs: { command: 'npm test' },
              output: [{ content: t.toolOutput, name: 'Tool Result' }],
            },
          ],
        },
        { message: { role: 'assistant', content: t.answer, usage: usage(t.reqs[1]) }, contextItems: [] },
      );
    });
    const doc = { sessionId: id, title: 'x', workspaceDirectory: CWD, history };
    json(join(root, `${id}.json`), doc);
    if (s === 0) first = { path: join(root, `${id}.json`), doc };
  }
  return {
    name: 'continue-cli',
    harness: 'continue-cli',
    home,
    expected,
    outputOf: (v) =>
      list(o(v).history).reduce<number>((sum, h) => sum + n(o(o(o(h).message).usage).completion_tokens), 0),
    call: () => {
      const t = first!;
      t.doc.history.push(
        { message: { role: 'user', content: 'more' }, contextItems: [] },
        {
          message: {
            role: 'assistant',
            content: 'more',
            usage: usage({ input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }),
          },
          contextItems: [],
        },
      );
      json(t.path, t.doc);
    },
  };
}

// ---- Kimi CLI -----------------------------------------------------------------------------------

function kimiCli(home: string, rng: Rng, text: Text): Corpus {
  const group = join(home, '.kimi', 'sessions', createHash('md5').update(CWD).digest('hex'));
  json(join(home, '.kimi', 'kimi.json'), { work_dirs: [{ path: CWD, kaos: 'local', last_session_id: null }] });
  let expected = 0;
  let first: { path: string; at: number } | undefined;
  const line = (at: number, type: string, payload: object) =>
    `${JSON.stringify({ timestamp: at / 1000, message: { type, payload } })}\n`;
  const status = (at: number, r: Req, id: string) =>
    line(at, 'StatusUpdate', {
      context_tokens: r.input + r.cacheRead + r.cacheWrite,
      max_context_tokens: 262_144,
      token_usage: {
        input_other: r.input,
        output: r.output,
        input_cache_read: r.cacheRead,
        input_cache_creation: r.cacheWrite,
      },
      message_id: id,
      plan_mode: false,
      mcp_status: null,
    });
  for (let s = 0; s < SESSIONS; s++) {
    const path = join(group, rng.uuid(), 'wire.jsonl');
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = T0 + s * 60_000;
    let out = `${JSON.stringify({ type: 'metadata', protocol_version: '1.10' })}\n`;
    turns.forEach((t, k) => {
      const call = `tool_${s}_${k}`;
      out +=
        line((at += 1000), 'TurnBegin', { user_input: t.prompt }) +
        line((at += 1000), 'StepBegin', { n: 1 }) +
        line((at += 1000), 'ToolCall', {
          type: 'function',
          id: call,
          function: { name: 'Shell', arguments: '{"command":"npm test"}' },
          extras: null,
        }) +
        status((at += 1000), t.reqs[0], `chatcmpl-${s}-${k}-a`) +
        line((at += 1000), 'ToolResult', {
          tool_call_id: call,
          return_value: {
            is_error: false,
            output: t.toolOutput,
            message: 'Command executed successfully.',
            display: [],
            extras: null,
          },
        }) +
        line((at += 1000), 'StepBegin', { n: 2 }) +
        line((at += 1000), 'ContentPart', { type: 'text', text: t.answer }) +
        status((at += 1000), t.reqs[1], `chatcmpl-${s}-${k}-b`) +
        line((at += 1000), 'TurnEnd', {});
    });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, out);
    if (s === 0) first = { path, at };
  }
  return {
    name: 'kimi-cli',
    harness: 'kimi-cli',
    home,
    expected,
    outputOf: (v) => {
      const m = o(o(v).message);
      return m.type === 'StatusUpdate' ? n(o(o(m.payload).token_usage).output) : 0;
    },
    call: () => {
      const t = first!;
      appendFileSync(
        t.path,
        line((t.at += 1000), 'TurnBegin', { user_input: 'more' }) +
          line((t.at += 1000), 'StepBegin', { n: 1 }) +
          status((t.at += 1000), { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }, 'chatcmpl-bench') +
          line((t.at += 1000), 'TurnEnd', {}),
      );
    },
  };
}

// ---- OpenClaw 2026.9 (SQLite) ---------------------------------------------------------------------

/** Events larger than this are stored zstd-compressed, as OpenClaw stores its large ones. */
const ZSTD_OVER = 8 << 10;
const NAVIGATION = JSON.stringify({
  version: 1,
  report: { kind: 'canonical' },
  navigation: {},
  reset: {},
  model: {},
  modelBytes: 0,
  modelWithoutCheckpointBytes: 0,
  withoutCustomDataBytes: 0,
});

/**
 * A zstd frame of raw (stored) blocks: valid zstd that any decoder reads, written without a
 * compressor (Node 20 has none). Decoding it skips the entropy stages a compressed frame has.
 */
function zstdStored(data: Buffer): Buffer {
  const BLOCK = 128 << 10;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(data.length);
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0]), size]; // magic; single segment, 4-byte content size
  for (let off = 0; off === 0 || off < data.length; off += BLOCK) {
    const chunk = data.subarray(off, off + BLOCK);
    const last = off + BLOCK >= data.length ? 1 : 0;
    const header = (chunk.length << 3) | last; // block type 0: raw
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), chunk);
  }
  return Buffer.concat(parts);
}

function openclaw(home: string, rng: Rng, text: Text): Corpus {
  const path = join(home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  mkdirSync(dirname(path), { recursive: true });
  // OpenClaw's own schema, from a recording of it, emptied.
  copyFileSync(join(FIXTURES, 'captures/openclaw/tool/.openclaw/agents/main/agent/openclaw-agent.sqlite'), path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('DELETE FROM transcript_events; DELETE FROM session_windows; DELETE FROM session_nodes');
  const node = db.prepare(
    'INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)',
  );
  const window = db.prepare(
    "INSERT INTO session_windows (session_id, session_key, created_at, updated_at, model_provider, model, agent_harness_id) VALUES (?, ?, ?, ?, 'anthropic', ?, 'openclaw')",
  );
  const insert = db.prepare(
    'INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const put = (session: string, seq: number, at: number, event: object) => {
    const bytes = Buffer.from(JSON.stringify(event));
    if (bytes.length > ZSTD_OVER) insert.run(session, seq, null, at, zstdStored(bytes), bytes.length, NAVIGATION);
    else insert.run(session, seq, bytes.toString('utf8'), at, null, bytes.length, null);
  };
  const answer = (at: number, r: Req, content: object[], stop: string) => ({
    type: 'message',
    id: rng.uuid(),
    timestamp: iso(at),
    message: {
      role: 'assistant',
      content,
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: MODEL,
      stopReason: stop,
      timestamp: at,
      usage: {
        input: r.input,
        output: r.output,
        cacheRead: r.cacheRead,
        cacheWrite: r.cacheWrite,
        reasoningTokens: 0,
        totalTokens: r.input + r.output + r.cacheRead + r.cacheWrite,
        cost: { total: 0.01 },
      },
    },
  });
  let expected = 0;
  let first = { session: '', seq: 0, at: 0 };
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = rng.uuid();
      const turns = turnsOf(rng, text);
      expected += outputs(turns);
      let at = T0 + s * 60_000;
      let seq = 0;
      node.run(
        `agent:main:explicit:${id}`,
        id,
        JSON.stringify({ sessionId: id, updatedAt: at, sessionStartedAt: at }),
        at,
      );
      window.run(id, `agent:main:explicit:${id}`, at, at, MODEL);
      put(id, seq++, at, { type: 'session', version: 4, id, timestamp: iso(at), cwd: CWD });
      put(id, seq++, at, {
        type: 'model_change',
        provider: 'anthropic',
        modelId: MODEL,
        id: rng.uuid(),
        timestamp: iso(at),
      });
      turns.forEach((t, k) => {
        const call = `call_${s}_${k}`;
        put(id, seq++, (at += 1000), {
          type: 'message',
          id: rng.uuid(),
          timestamp: iso(at),
          message: { role: 'user', content: t.prompt, timestamp: at },
        });
        put(
          id,
          seq++,
          (at += 1000),
          answer(
            at,
            t.reqs[0],
            [{ type: 'toolCall', id: call, name: 'exec', arguments: { command: 'npm test' } }],
            'toolUse',
          ),
        );
        put(id, seq++, (at += 1000), {
          type: 'message',
          id: rng.uuid(),
          timestamp: iso(at),
          message: {
            role: 'toolResult',
            toolCallId: call,
            toolName: 'exec',
            content: [{ type: 'text', text: t.toolOutput }],
            isError: false,
            timestamp: at,
          },
        });
        put(id, seq++, (at += 1000), answer(at, t.reqs[1], [{ type: 'text', text: t.answer }], 'stop'));
      });
      if (s === 0) first = { session: id, seq, at };
    }
  })();
  db.close();
  return {
    name: 'openclaw',
    harness: 'openclaw',
    home,
    expected,
    outputOf: (v) => {
      const m = o(o(v).message);
      return m.role === 'assistant' ? n(o(m.usage).output) : 0;
    },
    call: () => {
      const w = new Database(path);
      try {
        const event = JSON.stringify(
          answer(
            (first.at += 1000),
            { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 },
            [{ type: 'text', text: 'more' }],
            'stop',
          ),
        );
        w.prepare(
          'INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)',
        ).run(first.session, first.seq++, event, first.at, Buffer.byteLength(event));
      } finally {
        w.close();
      }
    },
  };
}

// ---- Amp (archived threads) -------------------------------------------------------------------

function amp(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.local', 'share', 'amp', 'threads');
  let expected = 0;
  let first: { path: string; doc: { messages: object[] }; at: number } | undefined;
  const answer = (messageId: number, at: number, r: Req, content: object[], stop: string) => ({
    role: 'assistant',
    messageId,
    content,
    state: { type: 'complete', stopReason: stop },
    usage: {
      model: MODEL,
      inputTokens: r.input,
      outputTokens: r.output,
      cacheCreationInputTokens: r.cacheWrite,
      cacheReadInputTokens: r.cacheRead,
      totalInputTokens: r.input + r.cacheRead + r.cacheWrite,
      maxInputTokens: 968_000,
      timestamp: iso(at),
    },
  });
  for (let s = 0; s < SESSIONS; s++) {
    const id = `T-${rng.uuid()}`;
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = T0 + s * 60_000;
    const messages: object[] = [];
    turns.forEach((t, k) => {
      const call = `toolu_${s}_${k}`;
      messages.push({
        role: 'user',
        messageId: messages.length,
        content: [{ type: 'text', text: t.prompt }],
        meta: { sentAt: (at += 1000) },
      });
      messages.push(
        answer(
          messages.length,
          (at += 1000),
          t.reqs[0],
          [{ type: 'tool_use', id: call, name: 'Bash', input: { cmd: 'npm test' }, complete: true }],
          'tool_use',
        ),
      );
      messages.push({
        role: 'user',
        messageId: messages.length,
        content: [
          {
            type: 'tool_result',
            toolUseID: call,
            run: { status: 'done', result: { output: t.toolOutput, exitCode: 0 } },
          },
        ],
        meta: { sentAt: (at += 1000) },
      });
      messages.push(answer(messages.length, (at += 1000), t.reqs[1], [{ type: 'text', text: t.answer }], 'end_turn'));
    });
    const doc = {
      v: 5,
      id,
      created: T0 + s * 60_000,
      title: 'x',
      messages,
      env: {
        initial: { trees: [{ displayName: 'app', uri: `file://${CWD}` }], platform: { os: 'linux', client: 'CLI' } },
      },
    };
    json(join(root, `${id}.json`), doc);
    if (s === 0) first = { path: join(root, `${id}.json`), doc, at };
  }
  return {
    name: 'amp',
    harness: 'amp',
    home,
    expected,
    outputOf: (v) => list(o(v).messages).reduce<number>((sum, m) => sum + n(o(o(m).usage).outputTokens), 0),
    call: () => {
      const t = first!;
      t.doc.messages.push(
        {
          role: 'user',
          messageId: t.doc.messages.length,
          content: [{ type: 'text', text: 'more' }],
          meta: { sentAt: (t.at += 1000) },
        },
        answer(
          t.doc.messages.length + 1,
          (t.at += 1000),
          { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 },
          [{ type: 'text', text: 'more' }],
          'end_turn',
        ),
      );
      json(t.path, t.doc);
    },
  };
}

// ---- Auggie ---------------------------------------------------------------------------------------

function auggie(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.augment', 'sessions');
  let expected = 0;
  let first: { path: string; doc: { chatHistory: object[] }; at: number } | undefined;
  const exchange = (seq: number, at: number, r: Req, answer: string) => ({
    completed: true,
    finishedAt: iso(at),
    sequenceId: seq,
    exchange: {
      model_id: MODEL,
      request_id: rng.uuid(),
      response_nodes: [
        { type: 0, content: answer },
        {
          type: 10,
          token_usage: {
            input_tokens: r.input,
            output_tokens: r.output,
            cache_read_input_tokens: r.cacheRead,
            cache_creation_input_tokens: r.cacheWrite,
          },
        },
      ],
    },
  });
  for (let s = 0; s < SESSIONS; s++) {
    const id = rng.uuid();
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = T0 + s * 60_000;
    // Auggie records an exchange's answer, not its tool outputs: the answers carry the bytes here.
    const chatHistory = turns.flatMap((t, k) => [
      exchange(2 * k + 1, (at += 1000), t.reqs[0], t.toolOutput),
      exchange(2 * k + 2, (at += 1000), t.reqs[1], t.answer),
    ]);
    const doc = {
      sessionId: id,
      created: iso(T0 + s * 60_000),
      modified: iso(at),
      agentState: { modelId: MODEL },
      chatHistory,
    };
    json(join(root, `${id}.json`), doc);
    if (s === 0) first = { path: join(root, `${id}.json`), doc, at };
  }
  return {
    name: 'auggie',
    harness: 'auggie',
    home,
    expected,
    outputOf: (v) =>
      list(o(v).chatHistory).reduce<number>(
        (sum, h) =>
          sum +
          list(o(o(h).exchange).response_nodes).reduce<number>(
            (a, node) => a + n(o(o(node).token_usage).output_tokens),
            0,
          ),
        0,
      ),
    call: () => {
      const t = first!;
      t.doc.chatHistory.push(
        exchange(
          t.doc.chatHistory.length + 1,
          (t.at += 1000),
          { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 },
          'more',
        ),
      );
      json(t.path, t.doc);
    },
  };
}

// ---- Junie ----------------------------------------------------------------------------------------

function junie(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.junie', 'sessions');
  let expected = 0;
  let first: { path: string; at: number } | undefined;
  const usage = (at: number, r: Req) =>
    `${JSON.stringify({
      timestampMs: at,
      event: {
        agentEvent: {
          kind: 'LlmResponseMetadataEvent',
          agent: { id: 'main', name: 'main' },
          modelUsage: [
            {
              model: MODEL,
              provider: 'anthropic',
              inputTokens: r.input,
              outputTokens: r.output,
              cacheInputTokens: r.cacheRead,
              cacheCreateTokens: r.cacheWrite,
              cost: 0.01,
              time: 900,
            },
          ],
        },
      },
    })}\n`;
  for (let s = 0; s < SESSIONS; s++) {
    const path = join(root, `session-${String(s).padStart(6, '0')}-${rng.hex(6)}`, 'events.jsonl');
    const turns = turnsOf(rng, text);
    expected += outputs(turns);
    let at = T0 + s * 60_000;
    let out = '';
    // Junie's events record prompts and usage; what its tools returned is in its state snapshots, not written here.
    for (const t of turns) {
      out +=
        `${JSON.stringify({ kind: 'UserPromptEvent', timestampMs: (at += 1000), prompt: t.prompt })}\n` +
        `${JSON.stringify({ kind: 'AgentCurrentStatusUpdatedEvent', timestampMs: (at += 1000), status: 'Thinking' })}\n` +
        usage((at += 1000), t.reqs[0]) +
        usage((at += 1000), t.reqs[1]);
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, out);
    if (s === 0) first = { path, at };
  }
  return {
    name: 'junie',
    harness: 'junie',
    home,
    expected,
    outputOf: (v) =>
      list(o(o(o(v).event).agentEvent).modelUsage).reduce<number>((sum, u) => sum + n(o(u).outputTokens), 0),
    call: () => {
      const t = first!;
      appendFileSync(t.path, usage((t.at += 1000), { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }));
    },
  };
}

// ---- TRAE CLI (wave 4): Codex's rollouts under ~/.trae/cli, no cache writes -----------------------

function traeCli(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.trae', 'cli', 'sessions', '2026', '09', '21');
  let expected = 0;
  let first: { path: string; at: number; total: Req } | undefined;
  const line = (at: number, type: string, payload: object) =>
    `${JSON.stringify({ timestamp: iso(at), type, payload })}\n`;
  const tokens = (at: number, last: Req, total: Req) => {
    const u = (r: Req) => ({
      input_tokens: r.input + r.cacheRead,
      cached_input_tokens: r.cacheRead,
      output_tokens: r.output,
      reasoning_output_tokens: 0,
      total_tokens: r.input + r.cacheRead + r.output,
    });
    return line(at, 'event_msg', {
      type: 'token_count',
      info: { last_token_usage: u(last), total_token_usage: u(total), model_context_window: 272000 },
      rate_limits: null,
      context: { used_tokens: 0 },
    });
  };
  const add = (a: Req, b: Req): Req => ({
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: 0,
  });
  for (let s = 0; s < SESSIONS; s++) {
    const id = `01a2${rng.hex(4)}-${rng.hex(4)}-7${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`;
    const path = join(root, `rollout-2026-09-21T10-00-00-${id}.jsonl`);
    let at = T0 + s * 60_000;
    let total: Req = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    let out = line(at, 'session_meta', {
      id,
      timestamp: iso(at),
      cwd: CWD,
      originator: 'codex-tui',
      cli_version: '0.200.19',
      source: 'cli',
      model_provider: 'trae',
    });
    for (const [k, t] of turnsOf(rng, text).entries()) {
      out +=
        line((at += 1000), 'turn_context', {
          turn_id: `turn-${k}`,
          cwd: CWD,
          model: 'doubao-seed-code',
          model_provider: 'trae',
        }) +
        line((at += 1000), 'event_msg', { type: 'task_started', turn_id: `turn-${k}` }) +
        line((at += 1000), 'event_msg', { type: 'user_message', message: t.prompt, images: [] }) +
        line((at += 1000), 'response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: '{"cmd":"ls"}',
          call_id: `call_${s}_${k}`,
        }) +
        line((at += 1000), 'response_item', {
          type: 'function_call_output',
          call_id: `call_${s}_${k}`,
          output: t.toolOutput,
        });
      for (const r of t.reqs) {
        const req = { ...r, cacheWrite: 0 };
        total = add(total, req);
        expected += r.output;
        out += tokens((at += 1000), req, total);
      }
      out +=
        line((at += 1000), 'event_msg', { type: 'agent_message', message: t.answer, phase: null }) +
        line((at += 1000), 'event_msg', { type: 'task_complete', turn_id: `turn-${k}`, last_agent_message: t.answer });
    }
    mkdirSync(root, { recursive: true });
    writeFileSync(path, out);
    if (s === 0) first = { path, at, total };
  }
  return {
    name: 'trae-cli',
    harness: 'trae-cli',
    home,
    expected,
    outputOf: (v) => {
      const p = o(o(v).payload);
      return p.type === 'token_count' ? n(o(o(p.info).last_token_usage).output_tokens) : 0;
    },
    call: () => {
      const t = first!;
      const req = { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 };
      t.total = add(t.total, req);
      appendFileSync(t.path, tokens((t.at += 1000), req, t.total));
    },
  };
}

// ---- Grok Build (wave 4): updates.jsonl, usage per prompt and model ----------------------------------

function grok(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.grok', 'sessions', encodeURIComponent(CWD));
  let expected = 0;
  let first: { path: string; at: number; id: string } | undefined;
  const line = (at: number, id: string, method: string, update: object) =>
    `${JSON.stringify({ timestamp: Math.floor(at / 1000), method, params: { sessionId: id, update } })}\n`;
  const completed = (at: number, id: string, prompt: string, r: Req) => {
    const u = {
      inputTokens: r.input + r.cacheRead + r.cacheWrite,
      outputTokens: r.output,
      totalTokens: r.input + r.cacheRead + r.cacheWrite + r.output,
      cachedReadTokens: r.cacheRead,
      cacheCreationTokens: r.cacheWrite,
      reasoningTokens: 0,
      modelCalls: 2,
      apiDurationMs: 900,
      costUsdTicks: 12_345_000,
    };
    return line(at, id, '_x.ai/session/update', {
      sessionUpdate: 'turn_completed',
      prompt_id: prompt,
      stop_reason: 'end_turn',
      usage: { ...u, modelUsage: { 'grok-code-fast-1': u }, numTurns: 2 },
    });
  };
  for (let s = 0; s < SESSIONS; s++) {
    const id = `01a2${rng.hex(4)}-${rng.hex(4)}-7${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`;
    const path = join(root, id, 'updates.jsonl');
    let at = T0 + s * 60_000;
    let out = '';
    for (const [k, t] of turnsOf(rng, text).entries()) {
      // One usage record per prompt: the two requests' counts summed, as Grok's ledger does.
      const r = {
        input: t.reqs[0].input + t.reqs[1].input,
        output: t.reqs[0].output + t.reqs[1].output,
        cacheRead: t.reqs[0].cacheRead + t.reqs[1].cacheRead,
        cacheWrite: t.reqs[0].cacheWrite + t.reqs[1].cacheWrite,
      };
      expected += r.output;
      out +=
        line((at += 1000), id, 'session/update', {
          sessionUpdate: 'user_message_chunk',
          content: { type: 'text', text: t.prompt },
        }) +
        line((at += 1000), id, 'session/update', {
          sessionUpdate: 'tool_call',
          toolCallId: `call_${k}`,
          title: 'bash',
          kind: 'execute',
          status: 'pending',
          rawInput: { command: 'ls' },
        }) +
        line((at += 1000), id, 'session/update', {
          sessionUpdate: 'tool_call_update',
          toolCallId: `call_${k}`,
          status: 'completed',
          rawOutput: t.toolOutput,
        }) +
        line((at += 1000), id, 'session/update', {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: t.answer },
        }) +
        completed((at += 1000), id, `p-${k}`, r);
    }
    json(join(root, id, 'summary.json'), {
      info: { id, cwd: CWD },
      session_summary: 'x',
      created_at: iso(T0),
      updated_at: iso(at),
      num_messages: 6,
      current_model_id: 'grok-code-fast-1',
    });
    writeFileSync(path, out);
    if (s === 0) first = { path, at, id };
  }
  return {
    name: 'grok',
    harness: 'grok',
    home,
    expected,
    outputOf: (v) =>
      Object.values(o(o(o(o(o(v).params).update).usage).modelUsage)).reduce<number>(
        (a, m) => a + n(o(m).outputTokens),
        0,
      ),
    call: () => {
      const t = first!;
      appendFileSync(
        t.path,
        line((t.at += 1000), t.id, 'session/update', {
          sessionUpdate: 'user_message_chunk',
          content: { type: 'text', text: 'more' },
        }) + completed((t.at += 1000), t.id, 'p-more', { input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }),
      );
    },
  };
}

// ---- measuring --------------------------------------------------------------------------------------

/** Every file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

// ---- OpenHands CLI (wave 4): base_state.json running totals, one event a file -------------------

function openhands(home: string, rng: Rng, text: Text): Corpus {
  const root = join(home, '.openhands', 'conversations');
  let expected = 0;
  let first: { dir: string; at: number; state: Record<string, unknown>; usages: object[]; next: number } | undefined;
  const usageOf = (r: Req, k: string) => ({
    model: MODEL,
    prompt_tokens: r.input + r.cacheRead + r.cacheWrite,
    completion_tokens: r.output,
    cache_read_tokens: r.cacheRead,
    cache_write_tokens: r.cacheWrite,
    reasoning_tokens: 0,
    context_window: 200_000,
    per_turn_token: r.input + r.output,
    response_id: `chatcmpl-${k}`,
  });
  const stateOf = (id: string, usages: object[]) => ({
    id,
    agent: { kind: 'Agent', llm: { model: MODEL, usage_id: 'agent' } },
    workspace: { kind: 'LocalWorkspace', working_dir: CWD },
    execution_status: 'finished',
    confirmation_policy: { kind: 'NeverConfirm' },
    stats: {
      usage_to_metrics: {
        agent: {
          model_name: MODEL,
          accumulated_cost: 0.01 * usages.length,
          token_usages: usages,
          costs: usages.map(() => ({ model: MODEL, cost: 0.01, timestamp: T0 / 1000 })),
        },
      },
    },
    tags: {},
  });
  const event = (dir: string, k: number, at: number, e: object) => {
    const id = `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`;
    json(join(dir, 'events', `event-${String(k).padStart(5, '0')}-${id}.json`), {
      id,
      timestamp: new Date(at).toISOString().slice(0, -1),
      ...e,
    });
  };
  const message = (source: string, content: string) => ({
    kind: 'MessageEvent',
    source,
    llm_message: { role: source === 'user' ? 'user' : 'assistant', content: [{ type: 'text', text: content }] },
  });
  for (let s = 0; s < SESSIONS; s++) {
    const hex = rng.hex(32);
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const dir = join(root, hex);
    let at = T0 + s * 60_000;
    let k = 0;
    const usages: object[] = [];
    event(dir, k++, at, {
      kind: 'SystemPromptEvent',
      source: 'agent',
      system_prompt: { type: 'text', text: 'You are OpenHands agent' },
      tools: [],
    });
    for (const [j, t] of turnsOf(rng, text).entries()) {
      expected += t.reqs[0].output + t.reqs[1].output;
      usages.push(usageOf(t.reqs[0], `${s}-${j}-0`), usageOf(t.reqs[1], `${s}-${j}-1`));
      event(dir, k++, (at += 1000), message('user', t.prompt));
      event(dir, k++, (at += 1000), {
        kind: 'ActionEvent',
        source: 'agent',
        tool_name: 'terminal',
        tool_call_id: `toolu_${j}`,
        action: { kind: 'TerminalAction', command: 'ls' },
        llm_response_id: `chatcmpl-${s}-${j}-0`,
      });
      event(dir, k++, (at += 1000), {
        kind: 'ObservationEvent',
        source: 'environment',
        tool_name: 'terminal',
        tool_call_id: `toolu_${j}`,
        observation: {
          kind: 'TerminalObservation',
          content: [{ type: 'text', text: t.toolOutput }],
          is_error: false,
          exit_code: 0,
        },
      });
      event(dir, k++, (at += 1000), { ...message('agent', t.answer), llm_response_id: `chatcmpl-${s}-${j}-1` });
    }
    const state = stateOf(id, usages);
    json(join(dir, 'base_state.json'), state);
    if (s === 0) first = { dir, at, state, usages, next: k };
  }
  return {
    name: 'openhands',
    harness: 'openhands',
    home,
    expected,
    outputOf: (v) =>
      o(v).stats
        ? Object.values(o(o(o(v).stats).usage_to_metrics)).reduce<number>(
            (a, m) =>
              a +
              (Array.isArray(o(m).token_usages)
                ? (o(m).token_usages as unknown[]).reduce<number>((b, u) => b + n(o(u).completion_tokens), 0)
                : 0),
            0,
          )
        : 0,
    call: () => {
      // A prompt and its answer: two event files, and the state rewritten with the call's usage.
      const f = first!;
      event(f.dir, f.next++, (f.at += 1000), message('user', 'more'));
      event(f.dir, f.next++, (f.at += 1000), message('agent', 'done'));
      f.usages.push(usageOf({ input: 10, output: ADDED, cacheRead: 0, cacheWrite: 0 }, 'more'));
      json(join(f.dir, 'base_state.json'), stateOf(String(f.state.id), f.usages));
    },
  };
}

// ---- GitHub Copilot Chat in VS Code (wave 4): the chat journal, and each call's tokens in agent-traces.db ----

function copilotVscode(home: string, rng: Rng, text: Text): Corpus {
  const user = join(home, '.config', 'Code', 'User');
  const ws = join(user, 'workspaceStorage', rng.hex(32));
  json(join(ws, 'workspace.json'), { folder: `file://${CWD}` });
  const dbPath = join(user, 'globalStorage', 'github.copilot-chat', 'agent-traces.db');
  mkdirSync(dirname(dbPath), { recursive: true });
  const db = new Database(dbPath);
  // As Copilot opens it.
  db.pragma('journal_mode = WAL');
  db.exec(AGENT_TRACES_SCHEMA);
  const insert =
    db.prepare(`INSERT INTO spans (span_id, trace_id, name, start_time_ms, end_time_ms, status_code, operation_name, request_model, input_tokens,
    output_tokens, cached_tokens, chat_session_id, turn_index) VALUES (?, ?, 'chat', ?, ?, 1, 'chat', ?, ?, ?, ?, ?, ?)`);
  const attribute = db.prepare("INSERT INTO span_attributes VALUES (?, 'gen_ai.usage.cache_creation.input_tokens', ?)");
  const call = (session: string, turn: number, at: number, r: Req) => {
    const span = rng.hex(16);
    insert.run(
      span,
      rng.hex(32),
      at - 900,
      at,
      MODEL,
      r.input + r.cacheRead + r.cacheWrite,
      r.output,
      r.cacheRead,
      session,
      turn,
    );
    attribute.run(span, String(r.cacheWrite));
  };
  const line = (v: object) => `${JSON.stringify(v)}\n`;
  /** Request `k` of a session: pushed, answered with a command and its output, ended with its output tokens. */
  const request = (k: number, at: number, prompt: string, parts: object[], output: number) =>
    line({
      kind: 2,
      k: ['requests'],
      v: [
        {
          requestId: `request_${rng.hex(8)}`,
          timestamp: at,
          message: { text: prompt, parts: [{ text: prompt, kind: 'text' }] },
          agent: { id: 'github.copilot.editsAgent' },
          modelId: `copilot/${MODEL}`,
          variableData: { variables: [] },
          response: [],
          modelState: { value: 0 },
        },
      ],
    }) +
    line({ kind: 2, k: ['requests', k, 'response'], v: parts }) +
    line({
      kind: 1,
      k: ['requests', k, 'result'],
      v: {
        timings: { firstProgress: 900, totalElapsed: 4000 },
        metadata: { promptTokens: 9000, outputTokens: output, toolCallRounds: [] },
      },
    }) +
    line({ kind: 1, k: ['requests', k, 'modelState'], v: { value: 1, completedAt: at + 4000 } });
  let expected = 0;
  let first: { path: string; id: string; at: number; next: number } | undefined;
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = rng.uuid();
      const path = join(ws, 'chatSessions', `${id}.jsonl`);
      let at = T0 + s * 60_000;
      let out = line({
        kind: 0,
        v: {
          version: 3,
          creationDate: at,
          initialLocation: 'panel',
          responderUsername: 'GitHub Copilot',
          sessionId: id,
          requests: [],
          hasPendingEdits: false,
        },
      });
      const turns = turnsOf(rng, text);
      turns.forEach((t, k) => {
        const parts = [
          { value: 'Running the tests.' },
          {
            kind: 'toolInvocationSerialized',
            toolCallId: `toolu_${rng.hex(12)}`,
            toolId: 'run_in_terminal',
            invocationMessage: { value: 'Running `npm test`' },
            isConfirmed: { type: 4 },
            isComplete: true,
            source: { type: 'internal' },
            toolSpecificData: { kind: 'terminal', commandLine: { original: 'npm test' }, language: 'sh' },
          },
          { value: t.answer },
        ];
        // The journal's output is the last call's (its scope is not known for sure), the database's each call's.
        out += request(k, (at += 10_000), t.prompt, parts, t.reqs[1].output);
        call(id, k, at + 2000, t.reqs[0]);
        call(id, k, at + 4000, t.reqs[1]);
      });
      expected += outputs(turns);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, out);
      if (s === 0) first = { path, id, at, next: turns.length };
    }
  })();
  db.close();
  return {
    name: 'copilot-vscode',
    harness: 'copilot-vscode',
    home,
    expected,
    // The journal's lines are parsed and count nothing: the database's calls count (`baseline`).
    outputOf: () => 0,
    call: () => {
      // A new request: its call in the database, its turn in the journal (the database's to count).
      const f = first!;
      const writer = new Database(dbPath);
      try {
        const span = rng.hex(16);
        writer
          .prepare(
            `INSERT INTO spans (span_id, trace_id, name, start_time_ms, end_time_ms, operation_name, request_model, input_tokens, output_tokens,
          chat_session_id, turn_index) VALUES (?, 'x', 'chat', ?, ?, 'chat', ?, 10, ?, ?, ?)`,
          )
          .run(span, (f.at += 10_000), f.at + 1000, MODEL, ADDED, f.id, f.next);
      } finally {
        writer.close();
      }
      appendFileSync(f.path, request(f.next++, f.at, 'more', [{ value: 'done' }], ADDED));
    },
  };
}

/**
 * The plain way: every file parsed whole (JSONL: every line; OpenClaw's database: every transcript
 * row, decompressed; Copilot Chat's agent-traces.db: every call's row), the output tokens summed.
 */
function baseline(c: Corpus, files: readonly string[]): number {
  let total = 0;
  for (const path of files) {
    if (path.endsWith('.sqlite')) {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        for (const r of db.prepare('SELECT event_json, event_zstd FROM transcript_events').iterate() as Iterable<{
          event_json: string | null;
          event_zstd: Buffer | null;
        }>) {
          total += c.outputOf(JSON.parse(r.event_json ?? Buffer.from(decompress(r.event_zstd!)).toString('utf8')));
        }
      } finally {
        db.close();
      }
    } else if (path.endsWith('agent-traces.db')) {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        total += db
          .prepare("SELECT TOTAL(output_tokens) FROM spans WHERE operation_name = 'chat'")
          .pluck()
          .get() as number;
      } finally {
        db.close();
      }
    } else if (path.endsWith('.jsonl')) {
      for (const line of readFileSync(path, 'utf8').split('\n')) if (line) total += c.outputOf(JSON.parse(line));
    } else if (path.endsWith('.json')) {
      total += c.outputOf(JSON.parse(readFileSync(path, 'utf8')));
    }
  }
  return total;
}

/** The exporter's output tokens for a corpus's harness. */
function exported(agent: Exporter, c: Corpus): number {
  return [...agent.store.counters.values()]
    .filter((k) => k.metric === 'tokens' && k.labels.harness === c.harness && k.labels.token_type === 'output')
    .reduce((a, k) => a + k.value, 0);
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

export async function benchWave3Readers(seed: number): Promise<void> {
  const makers: ((home: string, rng: Rng, text: Text) => Corpus)[] = [
    (h, r, t) =>
      extensionTasks(
        'cline (VS Code extension)',
        { harness: 'cline', extension: 'saoudrizwan.claude-dev', wholePrompt: false },
        h,
        r,
        t,
      ),
    clineCli,
    (h, r, t) =>
      extensionTasks(
        'roo-code',
        { harness: 'roo-code', extension: 'rooveterinaryinc.roo-cline', wholePrompt: true },
        h,
        r,
        t,
      ),
    (h, r, t) =>
      extensionTasks(
        'kilo (VS Code extension)',
        { harness: 'kilo', extension: 'kilocode.kilo-code', wholePrompt: true },
        h,
        r,
        t,
      ),
    continueCli,
    kimiCli,
    openclaw,
    amp,
    auggie,
    junie,
    traeCli,
    grok,
    openhands,
    copilotVscode,
  ];
  for (const [i, make] of makers.entries()) {
    const rng = new Rng(seed);
    const c = make(join(work, `wave3-${i}`), rng, new Text(rng));
    const files = filesUnder(c.home);
    const bytes = files.reduce((a, f) => a + statSync(f).size, 0);
    for (const f of files) readFileSync(f); // into the page cache for both contenders
    row(`${c.name}: files`, `${mb(bytes)}: ${SESSIONS} sessions, ${files.length} files`);

    gc();
    let t = performance.now();
    const base = baseline(c, files);
    const baseMs = performance.now() - t;
    const agent = newExporter(join(work, `state-wave3-${i}`), c.home);
    gc();
    t = performance.now();
    await agent.scanAll();
    const coldMs = performance.now() - t;
    const got = exported(agent, c);
    if (base !== c.expected || got !== c.expected)
      mismatches.push(`${c.name} output tokens: expected ${c.expected}, baseline ${base}, exporter ${got}`);
    row(`${c.name}: baseline, everything parsed`, ms(baseMs), 'output tokens exact', base === c.expected);
    row(
      `${c.name}: exporter cold read`,
      `${ms(coldMs)} (${(baseMs / coldMs).toFixed(1)}x the baseline's speed)`,
      'output tokens exact',
      got === c.expected,
    );

    // Each figure as `serve` reports it (this harness's collector), and the wall time of a scan of every collector.
    const own = () => agent.collectors.get(c.harness)!.stats.durationSeconds * 1000;
    const rescans: number[] = [];
    const walls: number[] = [];
    for (let k = 0; k < 5; k++) {
      t = performance.now();
      await agent.scanAll();
      walls.push(performance.now() - t);
      rescans.push(own());
    }
    row(
      `${c.name}: rescan, nothing changed (median of 5)`,
      `${ms(median(rescans))} (every collector: ${ms(median(walls))})`,
    );

    try {
      const before = exported(agent, c);
      c.call();
      t = performance.now();
      await agent.scanAll();
      const wall = performance.now() - t;
      const ok = exported(agent, c) - before === ADDED;
      if (!ok) mismatches.push(`${c.name}: a new call of ${ADDED} counted as ${exported(agent, c) - before}`);
      row(`${c.name}: read after a new call`, `${ms(own())} (every collector: ${ms(wall)})`, 'exact', ok);
    } finally {
      await agent.stop();
    }
  }
}
