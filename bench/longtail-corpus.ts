// A deterministic HOME in the formats of Aider, Cursor agent and Antigravity CLI (as the readers'
// fixture HOME has them, test/fixtures/homes/aider-cursor-antigravity-sqlite), sized for a benchmark: Aider histories in
// repositories under ~/src, Cursor transcripts with their chat meta and store, and Antigravity
// conversation databases of protobuf steps. Most bytes are answers and tool outputs. The exact
// totals are summed while writing. The Antigravity record builders are also the tests'.

import { Database } from '../test/helpers/sqlite.js';
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGenerated, Rng, Text } from './corpus.js';
import { buf, ld, v, varint } from './protobuf-writer.js';

const GENERATOR = 2;
const KB = 1024;
const MB = 1024 * KB;

// ---- Antigravity records ---------------------------------------------------------------------

/** The tables of agy 1.0.9–1.2.0's conversation databases. */
export const AGY_SCHEMA = `
CREATE TABLE trajectory_meta (trajectory_id text, cascade_id text, trajectory_type integer, source integer, PRIMARY KEY (trajectory_id));
CREATE TABLE steps (idx integer, step_type integer NOT NULL DEFAULT 0, status integer NOT NULL DEFAULT 0,
  has_subtrajectory numeric NOT NULL DEFAULT false, metadata blob, error_details blob, permissions blob, task_details blob,
  render_info blob, step_payload blob, step_format integer NOT NULL DEFAULT 0, PRIMARY KEY (idx));
CREATE TABLE gen_metadata (idx integer, data blob, size integer, PRIMARY KEY (idx));
CREATE TABLE executor_metadata (idx integer, data blob, size integer, PRIMARY KEY (idx));
CREATE TABLE trajectory_metadata_blob (id text, data blob, PRIMARY KEY (id));
PRAGMA user_version = 1;`;

const AGY_STEP = { userInput: 14, planner: 15, generic: 132 } as const;

export interface StepSpec {
  type: number;
  status: number;
  /** Creation time, seconds. */
  at: number;
  traj?: string;
  /** A planner response's tool calls: [id, name]. */
  calls?: [string, string][];
  /** The call a tool step executes. */
  executes?: string;
  /** The step's usage's thinking part. */
  thinking?: number;
  /** Text of the step (a prompt, an answer, a tool's output). */
  text?: string;
}

/** A step's payload (gemini_coder.Step) with the fields the reader uses. */
export function stepPayload(s: StepSpec): Buffer {
  const meta = [
    ...ld(1, v(1, s.at)),
    ...(s.executes ? ld(4, ld(1, s.executes)) : []),
    ...(s.thinking ? ld(9, [...v(2, 1), ...v(9, s.thinking)]) : []),
    ...ld(20, ld(1, s.traj ?? 'traj-1')),
  ];
  const body =
    s.type === AGY_STEP.userInput
      ? ld(19, ld(2, s.text ?? ''))
      : s.type === AGY_STEP.planner
        ? ld(20, [
            ...ld(1, s.text ?? ''),
            ...(s.calls ?? []).flatMap(([id, name]) => ld(7, [...ld(1, id), ...ld(2, name)])),
          ])
        : ld(140, ld(1, s.text ?? ''));
  return buf(v(1, s.type), v(4, s.status), ld(5, meta), body);
}

export interface GenUsage {
  input: number;
  output: number;
  cacheRead: number;
}

/** A generation (gen_metadata): its usage, model and the steps it produced. */
export function generation(u: GenUsage, model: string, steps: number[]): Buffer {
  const usage = [...v(1, 3877), ...v(2, u.input), ...v(3, u.output), ...(u.cacheRead ? v(5, u.cacheRead) : [])];
  return buf(
    ld(1, [...ld(4, usage), ...ld(19, model)]),
    ld(
      2,
      steps.flatMap((i) => varint(i)),
    ),
  );
}

// ---- the corpus ------------------------------------------------------------------------------

export interface LongtailCorpus {
  home: string;
  seed: number;
  sizeMb: number;
  files: { aider: number; cursor: number; antigravity: number };
  bytes: { aider: number; cursor: number; antigravity: number };
  /** Token totals (Aider's as printed) and Cursor's prompts. */
  expected: { aider: GenUsage & { cacheWrite: number }; antigravity: GenUsage; cursorPrompts: number };
}

/** Aider's `format_tokens`: exact below 1,000, one decimal below 10,000, else rounded thousands. */
function formatTokens(n: number): string {
  return n < 1000 ? String(n) : n < 10000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}
const printed = (s: string) => Math.round(Number.parseFloat(s) * (s.endsWith('k') ? 1000 : 1));

/** A repository's chat history and its input history (each prompt's line, with when it was typed). */
function aiderHistory(
  rng: Rng,
  text: Text,
  sessions: number,
  expected: LongtailCorpus['expected']['aider'],
): { chat: string; input: string } {
  const out: string[] = [];
  const input: string[] = [];
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
  let day = Date.UTC(2026, 5, 1);
  for (let s = 0; s < sessions; s++) {
    day += rng.int(1, 48) * 3600_000;
    out.push(`\n# aider chat started at ${new Date(day).toISOString().slice(0, 19).replace('T', ' ')}\n`);
    out.push(
      '> Aider v0.86.2  \n> Main model: anthropic/claude-sonnet-4-5-20250929 with diff edit format, prompt cache, infinite output  \n> Weak model: anthropic/claude-haiku-4-5  \n> Git repo: .git with 120 files  \n',
    );
    let session = 0;
    for (let t = rng.int(1, 12); t > 0; t--) {
      const prompt = `Please ${text.code(rng.int(20, 200)).replace(/\n/g, ' ')}`.trim();
      day += rng.int(5, 600) * 1000;
      input.push(`\n# ${local(day)}\n+${prompt}\n`);
      out.push(`\n#### ${prompt}  \n\n`);
      out.push(
        `${text.code(rng.logUniform(500, 20 * KB))}\n\nsrc/app.py\n\`\`\`python\n<<<<<<< SEARCH\n${text.code(rng.int(100, 2000))}\n=======\n${text.code(rng.int(100, 2000))}\n>>>>>>> REPLACE\n\`\`\`\n\n`,
      );
      const [sent, write, hit, received] = [
        formatTokens(rng.logUniform(300, 90000)),
        formatTokens(rng.int(0, 2000)),
        formatTokens(rng.int(0, 20000)),
        formatTokens(rng.logUniform(20, 9000)),
      ];
      const cost = rng.int(1, 900) / 10000;
      session += cost;
      const cached = rng.chance(0.5);
      const [w, h] = cached ? [printed(write), printed(hit)] : [0, 0];
      expected.input += Math.max(0, printed(sent) - w - h);
      expected.output += printed(received);
      expected.cacheRead += h;
      expected.cacheWrite += w;
      const report = cached
        ? `> Tokens: ${sent} sent, ${write} cache write, ${hit} cache hit, ${received} received.\nCost: $${cost.toFixed(4)} message, $${session.toFixed(4)} session.  \n`
        : `> Tokens: ${sent} sent, ${received} received. Cost: $${cost.toFixed(4)} message, $${session.toFixed(4)} session.  \n`;
      out.push(report, '> Applied edit to src/app.py  \n', `> Commit ${rng.hex(7)} fix: things  \n`);
    }
  }
  return { chat: out.join(''), input: input.join('') };
}

function cursorChat(root: string, rng: Rng, text: Text, id: string, cwd: string): { bytes: number; prompts: number } {
  const slug = cwd.replace(/^\//, '').replace(/[/.]/g, '-');
  const dir = join(root, 'projects', slug, 'agent-transcripts', id);
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  let prompts = 0;
  let at = Date.UTC(2026, 5, 1) + rng.int(0, 90 * 24) * 3600_000;
  for (let t = rng.int(1, 15); t > 0; t--, prompts++) {
    at += rng.int(1, 120) * 60_000;
    const stamp = new Date(at).toISOString().slice(0, 16).replace('T', ' ');
    lines.push(
      JSON.stringify({
        role: 'user',
        message: {
          content: [
            {
              type: 'text',
              text: `<timestamp>${stamp}</timestamp>\n<user_query>\n${text.code(rng.int(20, 400))}\n</user_query>`,
            },
          ],
        },
      }),
    );
    for (let c = rng.int(0, 6); c > 0; c--) {
      const call = `toolu_${rng.hex(20)}`;
      lines.push(
        JSON.stringify({
          role: 'assistant',
          message: {
            content: [
              { type: 'text', text: text.code(rng.int(20, 400)) },
              {
                type: 'tool_use',
                id: call,
                name: rng.pick(['Read', 'Grep', 'Shell', 'StrReplace']),
                input: { path: 'src/app.ts' },
              },
            ],
          },
        }),
      );
      lines.push(
        JSON.stringify({
          role: 'user',
          message: {
            content: [{ type: 'tool_result', tool_use_id: call, content: text.code(rng.logUniform(200, 40 * KB)) }],
          },
        }),
      );
    }
    lines.push(
      JSON.stringify({
        role: 'assistant',
        message: { content: [{ type: 'text', text: text.code(rng.logUniform(100, 8 * KB)) }] },
      }),
    );
  }
  const transcript = `${lines.join('\n')}\n`;
  writeFileSync(join(dir, `${id}.jsonl`), transcript);
  const chat = join(root, 'chats', createHash('md5').update(cwd).digest('hex'), id);
  mkdirSync(chat, { recursive: true });
  writeFileSync(
    join(chat, 'meta.json'),
    JSON.stringify({ schemaVersion: 1, createdAtMs: at, updatedAtMs: at, hasConversation: true, title: 'chat', cwd }),
  );
  const db = new Database(join(chat, 'store.db'));
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);');
  db.prepare("INSERT INTO meta VALUES ('0', ?)").run(
    Buffer.from(
      JSON.stringify({
        agentId: id,
        latestRootBlobId: rng.hex(64),
        name: 'chat',
        mode: 'agent',
        createdAt: at,
        lastUsedModel: 'claude-4.5-sonnet',
      }),
    ).toString('hex'),
  );
  db.close();
  return { bytes: transcript.length, prompts };
}

function antigravityConversation(path: string, rng: Rng, text: Text, expected: GenUsage): void {
  const db = new Database(path);
  db.exec(AGY_SCHEMA);
  const step = db.prepare('INSERT INTO steps (idx, step_type, status, step_payload) VALUES (?, ?, ?, ?)');
  const gen = db.prepare('INSERT INTO gen_metadata (idx, data, size) VALUES (?, ?, ?)');
  let idx = 0;
  let gens = 0;
  let at = 1_780_000_000 + rng.int(0, 90 * 24 * 3600);
  db.transaction(() => {
    for (let t = rng.int(1, 10); t > 0; t--) {
      const put = (s: StepSpec) => step.run(idx++, s.type, s.status, stepPayload(s));
      put({ type: AGY_STEP.userInput, status: 3, at: (at += 60), text: text.code(rng.int(20, 400)) });
      for (let c = rng.int(0, 5); c >= 0; c--) {
        const call = c > 0 ? `call_${idx}` : undefined;
        const u = {
          input: rng.logUniform(100, 20000),
          output: rng.logUniform(20, 4000),
          cacheRead: rng.chance(0.6) ? rng.int(0, 50000) : 0,
        };
        expected.input += u.input;
        expected.output += u.output;
        expected.cacheRead += u.cacheRead;
        gen.run(gens++, generation(u, 'gemini-3.1-pro', [idx]), 0);
        put({
          type: AGY_STEP.planner,
          status: 3,
          at: (at += 5),
          text: text.code(rng.logUniform(50, 4 * KB)),
          ...(call ? { calls: [[call, 'run_command']] } : {}),
        });
        if (call)
          put({
            type: AGY_STEP.generic,
            status: rng.chance(0.1) ? 7 : 3,
            at: (at += 5),
            executes: call,
            text: text.code(rng.logUniform(200, 30 * KB)),
          });
      }
    }
  })();
  db.close();
}

function generate(home: string, seed: number, sizeMb: number): LongtailCorpus {
  const rng = new Rng(seed);
  const text = new Text(rng);
  const budget = (sizeMb * MB) / 3;
  const corpus: LongtailCorpus = {
    home,
    seed,
    sizeMb,
    files: { aider: 0, cursor: 0, antigravity: 0 },
    bytes: { aider: 0, cursor: 0, antigravity: 0 },
    expected: {
      aider: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      antigravity: { input: 0, output: 0, cacheRead: 0 },
      cursorPrompts: 0,
    },
  };
  while (corpus.bytes.aider < budget) {
    const repo = join(home, 'src', `org${corpus.files.aider % 7}`, `repo${corpus.files.aider}`);
    mkdirSync(repo, { recursive: true });
    const history = aiderHistory(rng, text, rng.int(1, 20), corpus.expected.aider);
    writeFileSync(join(repo, '.aider.chat.history.md'), history.chat);
    writeFileSync(join(repo, '.aider.input.history'), history.input);
    corpus.files.aider++;
    corpus.bytes.aider += history.chat.length + history.input.length;
  }
  const cursor = join(home, '.cursor');
  while (corpus.bytes.cursor < budget) {
    const chat = cursorChat(
      cursor,
      rng,
      text,
      `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`,
      `/home/dev/src/repo${rng.int(0, 30)}`,
    );
    corpus.files.cursor++;
    corpus.bytes.cursor += chat.bytes;
    corpus.expected.cursorPrompts += chat.prompts;
  }
  const conversations = join(home, '.gemini', 'antigravity-cli', 'conversations');
  mkdirSync(conversations, { recursive: true });
  while (corpus.bytes.antigravity < budget) {
    const path = join(conversations, `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}.db`);
    antigravityConversation(path, rng, text, corpus.expected.antigravity);
    corpus.files.antigravity++;
    corpus.bytes.antigravity += statSync(path).size;
  }
  return corpus;
}

/** The corpus in `dir`, generated unless one of the same generator, seed and size is there. */
export function ensureLongtailCorpus(
  dir: string,
  seed: number,
  sizeMb: number,
): { corpus: LongtailCorpus; reused: boolean } {
  return ensureGenerated(dir, seed, sizeMb, GENERATOR, generate, (c) => statSync(c.home).isDirectory());
}
