// A deterministic OpenCode database shaped like the real one (test/fixtures/captures/opencode: its
// schema is copied from the capture): sessions of turns, each a user message and one to eight
// model calls, with the parts OpenCode writes (step-start, reasoning, text, tool calls with their
// outputs, step-finish with the call's tokens), and subagent sessions started by `task` calls.
// Most bytes are tool outputs, which a reader can leave in the database. The exact token totals
// are summed while writing.

import { Database } from '../test/helpers/sqlite.js';
import { FIXTURES } from './root.js';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGenerated, Rng, Text } from './corpus.js';
import { zeroTotals, type Totals } from './totals.js';

const GENERATOR = 1;
const KB = 1024;
const MB = 1024 * KB;
const CAPTURE = join(FIXTURES, 'captures/opencode/tool/.local/share/opencode/opencode.db');

export interface StoreCorpus {
  home: string;
  db: string;
  seed: number;
  sizeMb: number;
  sessions: number;
  messages: number;
  parts: number;
  expected: Totals;
}

/** The capture's tables and indexes, created empty. */
function createSchema(db: Database): void {
  const capture = new Database(CAPTURE, { readonly: true, fileMustExist: true });
  const ddl = capture
    .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index'")
    .pluck()
    .all() as string[];
  capture.close();
  for (const sql of ddl) db.exec(sql);
}

function generate(home: string, seed: number, sizeMb: number): StoreCorpus {
  const rng = new Rng(seed);
  const text = new Text(rng);
  const dir = join(home, '.local', 'share', 'opencode');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'opencode.db');
  const db = new Database(path);
  db.pragma('journal_mode = DELETE');
  createSchema(db);
  const expected = zeroTotals();
  const counts = { sessions: 0, messages: 0, parts: 0 };
  const insert = {
    project: db.prepare(
      "INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, '[]')",
    ),
    session:
      db.prepare(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
      VALUES (?, 'p1', ?, 'bench', ?, 'A session', '1.18.33', ?, ?)`),
    message: db.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    ),
    finish: db.prepare('UPDATE message SET time_updated = ?, data = ? WHERE id = ?'),
    part: db.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
  };
  let clock = Date.UTC(2026, 3, 1);
  const tick = () => (clock += rng.int(5, 4000));
  let ids = 0;
  const id = (prefix: string) => `${prefix}_${(++ids).toString(16).padStart(12, '0')}${rng.hex(14)}`;
  insert.project.run('p1', '/home/dev/src/app', clock, clock);

  const part = (session: string, message: string, data: object) => {
    const t = tick();
    insert.part.run(id('prt'), message, session, t, t, JSON.stringify(data));
    counts.parts++;
  };
  const writeSession = (session: string, parent: string | null, directory: string, turns: number) => {
    const started = tick();
    insert.session.run(session, parent, directory, started, started);
    counts.sessions++;
    for (let turn = 0; turn < turns; turn++) {
      const user = id('msg');
      const asked = tick();
      const diffs = rng.chance(0.4)
        ? [
            {
              file: 'src/app.ts',
              additions: rng.int(1, 80),
              deletions: rng.int(0, 40),
              before: text.code(rng.logUniform(200, 20 * KB)),
              after: text.code(rng.logUniform(200, 20 * KB)),
            },
          ]
        : [];
      insert.message.run(
        user,
        session,
        asked,
        asked,
        JSON.stringify({
          role: 'user',
          time: { created: asked },
          agent: 'build',
          model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' },
          summary: { diffs },
        }),
      );
      counts.messages++;
      part(session, user, { type: 'text', text: text.code(rng.logUniform(30, 3 * KB)) });
      const calls = rng.int(1, 8);
      for (let call = 0; call < calls; call++) {
        const answer = id('msg');
        const created = tick();
        const last = call === calls - 1;
        const info = {
          parentID: user,
          role: 'assistant',
          mode: 'build',
          agent: 'build',
          path: { cwd: directory, root: directory },
          cost: 0,
          modelID: 'claude-sonnet-4-5',
          providerID: 'anthropic',
        };
        insert.message.run(answer, session, created, created, JSON.stringify({ ...info, time: { created } }));
        counts.messages++;
        const tokens = {
          input: rng.int(5, 4000),
          output: rng.int(10, 3000),
          reasoning: rng.chance(0.5) ? rng.int(0, 2000) : 0,
          cache: { read: rng.int(0, 150_000), write: rng.int(0, 20_000) },
        };
        const total = tokens.input + tokens.output + tokens.reasoning + tokens.cache.read + tokens.cache.write;
        part(session, answer, { type: 'step-start', snapshot: rng.hex(40) });
        if (tokens.reasoning)
          part(session, answer, {
            type: 'reasoning',
            text: text.code(rng.logUniform(100, 6 * KB)),
            time: { start: created },
          });
        part(session, answer, {
          type: 'text',
          text: text.code(rng.logUniform(50, 3 * KB)),
          time: { start: created, end: created },
        });
        if (!last) {
          for (let n = rng.int(1, 3); n > 0; n--) {
            const tool = rng.pick(['bash', 'read', 'read', 'edit', 'grep', 'glob', 'write', 'webfetch']);
            const failed = rng.chance(0.05);
            const output = text.code(rng.logUniform(200, 60 * KB));
            part(session, answer, {
              type: 'tool',
              tool,
              callID: `call_${rng.hex(24)}`,
              state: failed
                ? { status: 'error', input: { command: 'x' }, error: 'failed', time: { start: created, end: created } }
                : {
                    status: 'completed',
                    input: { filePath: '/home/dev/src/app/src/app.ts' },
                    output,
                    title: tool,
                    metadata: { output: output.slice(0, 2 * KB) },
                    time: { start: created, end: created },
                  },
            });
          }
          if (!parent && rng.chance(0.03)) {
            const child = id('ses');
            part(session, answer, {
              type: 'tool',
              tool: 'task',
              callID: `call_${rng.hex(24)}`,
              state: { status: 'completed', input: {}, output: 'done', metadata: { sessionId: child } },
            });
            writeSession(child, session, directory, rng.int(1, 3));
          }
        }
        part(session, answer, {
          type: 'step-finish',
          reason: last ? 'stop' : 'tool-calls',
          snapshot: rng.hex(40),
          cost: 0,
          tokens: { total, ...tokens },
        });
        const t = expected.opencode;
        t.input += tokens.input;
        t.output += tokens.output + tokens.reasoning;
        t.cache_read += tokens.cache.read;
        t.cache_write += tokens.cache.write;
        const completed = tick();
        // Completed: the row is updated in place, as OpenCode does.
        insert.finish.run(
          completed,
          JSON.stringify({
            ...info,
            tokens: { total, ...tokens },
            time: { created, completed },
            finish: last ? 'stop' : 'tool-calls',
          }),
          answer,
        );
      }
    }
    db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(tick(), session);
  };

  const budget = sizeMb * MB;
  const size = () =>
    (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  db.transaction(() => {
    // The size is looked at every 50 sessions.
    for (let n = 1; n % 50 !== 0 || size() < budget; n++) {
      writeSession(
        id('ses'),
        null,
        `/home/dev/src/${rng.pick(['app', 'api', 'web', 'infra'])}`,
        Math.round(rng.logUniform(1, 40)),
      );
    }
  })();
  db.close();
  return { home, db: path, seed, sizeMb, ...counts, expected };
}

/** The corpus for this seed and size under `dir`: reused while its marker matches, else generated. */
export function ensureStoreCorpus(dir: string, seed: number, sizeMb: number): { corpus: StoreCorpus; reused: boolean } {
  return ensureGenerated(dir, seed, sizeMb, GENERATOR, generate, (c) => statSync(c.db).isFile());
}
