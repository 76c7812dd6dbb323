// A HOME with Crush's stores, written for tests: the global `projects.json` and two projects'
// `.crush/crush.db`, created by Crush's own migrations (test/fixtures/crush-migrations, copied
// from its repository) and filled as Crush fills them, with the truth of every session. Crush
// does not install here (its npm package downloads a binary), so there is no capture.

import { Database } from './sqlite.js';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crushSchema } from '../../bench/crush-schema.js';
import { tempDir } from './run.js';
import type { Truth } from './ground-truth.js';

// The truth's "now": 2026-11-30T12:00:00Z, in Unix seconds.
export const CRUSH_NOW = 1796040000;
const at = (hhmmss: string) => {
  const [h, m, s] = hhmmss.split(':').map(Number) as [number, number, number];
  return CRUSH_NOW - (12 * 3600 - (h * 3600 + m * 60 + s));
};

/** An empty database with Crush's schema, in WAL mode as Crush opens it. */
export function crushDb(path: string): Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  crushSchema(db);
  return db;
}

type Part = { type: string; data: object };
const text = (t: string): Part => ({ type: 'text', data: { text: t } });
const finish = (reason: string, time: number): Part => ({ type: 'finish', data: { reason, time } });
const call = (id: string, name: string, finished = true): Part => ({
  type: 'tool_call',
  data: { id, name, input: '{}', finished },
});
const result = (id: string, name: string, isError = false): Part => ({
  type: 'tool_result',
  data: { tool_call_id: id, name, content: 'x', is_error: isError },
});

/** Writes sessions into a database the way Crush's services do. */
export class CrushWriter {
  private n = 0;
  constructor(readonly db: Database) {}

  session(
    id: string,
    created: number,
    opts: { parent?: string; cost?: number; prompt?: number; completion?: number } = {},
  ): void {
    this.db
      .prepare(
        `INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at)
      VALUES (?, ?, 'A session', ?, ?, ?, ?, ?)`,
      )
      .run(id, opts.parent ?? null, opts.prompt ?? 0, opts.completion ?? 0, opts.cost ?? 0, created, created);
  }

  /** Sets a session's running totals (its `updated_at` trigger stamps the clock; the truth's time is kept). */
  totals(id: string, t: number, cost: number, prompt = 0, completion = 0, summary?: string): void {
    this.db
      .prepare(
        'UPDATE sessions SET cost = ?, prompt_tokens = ?, completion_tokens = ?, summary_message_id = ? WHERE id = ?',
      )
      .run(cost, prompt, completion, summary ?? null, id);
    this.db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(t, id);
  }

  message(
    session: string,
    role: string,
    t: number,
    parts: Part[],
    opts: { summary?: boolean; id?: string } = {},
  ): string {
    const id = opts.id ?? `${session}-m${++this.n}`;
    // Crush appends a `stop` finish to every message that is no answer.
    const all = role === 'assistant' ? parts : [...parts, finish('stop', t)];
    this.db
      .prepare(
        `INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at, is_summary_message)
      VALUES (?, ?, ?, ?, ?, 'anthropic', ?, ?, ?, ?)`,
      )
      .run(
        id,
        session,
        role,
        JSON.stringify(all),
        role === 'assistant' ? 'claude-sonnet-4-5' : null,
        t,
        t,
        all.some((p) => p.type === 'finish') ? t : null,
        opts.summary ? 1 : 0,
      );
    return id;
  }
}

const base = (id: string, project: string, over: Partial<Truth>): Truth => ({
  harness: 'crush',
  session_id: id,
  project,
  model: 'claude-sonnet-4-5',
  tokens: { input: null, output: null, cache_read: null, cache_write: null, reasoning: null },
  cost_usd: 0,
  tool_calls: 0,
  tool_errors: 0,
  prompts: 1,
  turns: { completed: 1, failed: 0, interrupted: 0 },
  compactions: 0,
  subagents: 0,
  status: 'done',
  status_reason: 'recent',
  ...over,
});

/** Every session `crushHome` writes, as the shared ground truth has them. */
export const CRUSH_TRUTH: Truth[] = [
  base('c1', 'web-ui', { cost_usd: 0.0123, context: { used: 2000, limit: 200_000 } }),
  base('c2', 'web-ui', { cost_usd: 0.02, tool_calls: 2, tool_errors: 1 }),
  base('c2-agent', 'web-ui', { parent_session_id: 'c2', cost_usd: 0.004, tool_calls: 1, prompts: 0, turns: null }),
  base('c3', 'web-ui', {
    cost_usd: 0.001,
    turns: { completed: 0, failed: 1, interrupted: 0 },
    status: 'error',
    status_reason: 'turn-failed',
  }),
  base('c4', 'web-ui', {
    cost_usd: 0.003,
    tool_calls: 1,
    turns: { completed: 0, failed: 0, interrupted: 0 },
    status: 'working',
    status_reason: 'turn-open',
  }),
  base('c5', 'data-pipe', {
    cost_usd: 0.05,
    prompts: 2,
    turns: { completed: 2, failed: 0, interrupted: 0 },
    compactions: 1,
    status: 'idle',
    status_reason: 'quiet',
  }),
];

/** A HOME with Crush's global data folder and two projects (`~/src/web-ui`, `~/src/data-pipe`). */
export function crushHome(home = tempDir('cae-crush-')): string {
  const project = (name: string) => {
    const dir = join(home, 'src', name);
    mkdirSync(join(dir, '.crush'), { recursive: true });
    return { dir, w: new CrushWriter(crushDb(join(dir, '.crush', 'crush.db'))) };
  };
  const web = project('web-ui');
  const pipe = project('data-pipe');
  const global = join(home, '.local', 'share', 'crush');
  mkdirSync(global, { recursive: true });
  writeFileSync(
    join(global, 'projects.json'),
    JSON.stringify(
      {
        projects: [
          { path: web.dir, data_dir: join(web.dir, '.crush'), last_accessed: '2026-11-30T11:58:00Z' },
          { path: pipe.dir, data_dir: '.crush', last_accessed: '2026-11-30T10:06:00Z' },
          { path: join(home, 'src', 'gone'), data_dir: '.crush', last_accessed: '2026-11-01T10:00:00Z' },
        ],
      },
      null,
      2,
    ),
  );

  const w = web.w;
  w.session('c1', at('11:50:00'));
  w.message('c1', 'user', at('11:50:00'), [text('Fix the failing test')]);
  w.message('c1', 'assistant', at('11:50:10'), [text('Done.'), finish('end_turn', at('11:50:10'))]);
  w.totals('c1', at('11:50:10'), 0.0123, 1800, 200);

  w.session('c2', at('11:40:00'));
  w.message('c2', 'user', at('11:40:00'), [text('Audit the tests')]);
  w.message('c2', 'assistant', at('11:40:05'), [call('t1', 'bash'), finish('tool_use', at('11:40:05'))]);
  w.message('c2', 'tool', at('11:40:08'), [result('t1', 'bash', true)]);
  w.message('c2', 'assistant', at('11:40:10'), [call('t2', 'agent'), finish('tool_use', at('11:40:10'))]);
  w.session('c2-agent', at('11:40:11'), { parent: 'c2' });
  w.message('c2-agent', 'user', at('11:40:11'), [text('Find the slow tests')]);
  w.message('c2-agent', 'assistant', at('11:40:15'), [call('t3', 'view'), finish('tool_use', at('11:40:15'))]);
  w.message('c2-agent', 'tool', at('11:40:16'), [result('t3', 'view')]);
  w.message('c2-agent', 'assistant', at('11:40:20'), [text('Two are slow.'), finish('end_turn', at('11:40:20'))]);
  w.totals('c2-agent', at('11:40:20'), 0.004, 900, 50);
  w.message('c2', 'tool', at('11:40:21'), [result('t2', 'agent')]);
  w.message('c2', 'assistant', at('11:41:00'), [text('Audited.'), finish('end_turn', at('11:41:00'))]);
  w.totals('c2', at('11:41:00'), 0.02, 3000, 120);

  w.session('c3', at('11:30:00'));
  w.message('c3', 'user', at('11:30:00'), [text('Rename the flag')]);
  w.message('c3', 'assistant', at('11:30:05'), [finish('error', at('11:30:05'))]);
  w.totals('c3', at('11:30:05'), 0.001, 500, 0);

  w.session('c4', at('11:58:00'));
  w.message('c4', 'user', at('11:58:00'), [text('Run the linter')]);
  w.message('c4', 'assistant', at('11:58:04'), [text('Running it.'), call('t4', 'bash', false)]);
  w.totals('c4', at('11:58:04'), 0.003, 1200, 40);

  const p = pipe.w;
  p.session('c5', at('10:00:00'));
  p.message('c5', 'user', at('10:00:00'), [text('Explain the pipeline')]);
  p.message('c5', 'assistant', at('10:00:30'), [text('It reads, then writes.'), finish('end_turn', at('10:00:30'))]);
  const summary = p.message(
    'c5',
    'assistant',
    at('10:05:00'),
    [text('Summary: the pipeline reads and writes.'), finish('end_turn', at('10:05:00'))],
    { summary: true },
  );
  p.message('c5', 'user', at('10:06:00'), [text('Now add a retry')]);
  p.message('c5', 'assistant', at('10:06:20'), [text('Added.'), finish('end_turn', at('10:06:20'))]);
  p.totals('c5', at('10:06:20'), 0.05, 4000, 300, summary);

  // Written at the truth's time, not just now: a store changed within the last seconds is read again.
  for (const x of [web, pipe]) {
    x.w.db.close();
    utimesSync(join(x.dir, '.crush', 'crush.db'), CRUSH_NOW - 60, CRUSH_NOW - 60);
  }
  return home;
}
