// `demo`: live metrics without any agent installed. Sample sessions, shaped like the real CLIs'
// files (test/fixtures/captures), are written into a temporary home and kept going: three sessions
// keep working (Claude Code with a subagent, Codex with usage limits, OpenCode in its database), one
// waits on the user, one has stalled mid-turn, one failed. The exporter reads that home like any other,
// and sees each live session's agent process (and one agent with no session file) in the process table,
// of which it sees only the processes it started.

import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../files/sqlite.js';
import { Exporter } from '../exporter.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import { DEMO_FOLDER } from '../process/harnesses.js';

const TICK_MS = 2000;
const ASKING = 'demo-asking-0000-4000-8000-000000000001';
const STALLED = 'demo-stalled-000-4000-8000-000000000002';
const WORKING = 'demo-working-000-4000-8000-000000000004';
const THREAD = '019fc8be-3658-7ca3-9000-000000000005';
const OPENCODE_SESSION = 'ses_demo0000000000000000000006';
const MIN = 60_000;

type Line = Record<string, unknown>;

function writer(path: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  return (...lines: Line[]) => appendFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

/** A Claude Code transcript: `projects/<slug>/<session>.jsonl` (or a subagent's file). */
function claude(home: string, session: string, project: string, subagent?: string) {
  const cwd = `/home/demo/src/${project}`;
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  const write = writer(
    subagent ? join(dir, session, 'subagents', `agent-${subagent}.jsonl`) : join(dir, `${session}.jsonl`),
  );
  let n = 0;
  const base = (t: number) => ({
    sessionId: session,
    cwd,
    gitBranch: 'main',
    version: '2.1.332',
    timestamp: new Date(t).toISOString(),
    isSidechain: !!subagent,
    uuid: `${session}-${subagent ?? ''}-${n++}`,
  });
  const usage = (input: number, output: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: input * 12,
    cache_creation_input_tokens: Math.round(input / 3),
  });
  return {
    prompt: (t: number) =>
      write({ ...base(t), type: 'user', message: { role: 'user', content: 'Continue with the next step' } }),
    tool: (t: number, name: string, input = 400, args: Line = {}) => {
      const id = `toolu_${session}_${n}`;
      write({
        ...base(t),
        type: 'assistant',
        message: {
          id: `msg_${session}_${n}`,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          stop_reason: 'tool_use',
          content: [{ type: 'tool_use', id, name, input: args }],
          usage: usage(input, 80),
        },
      });
      return id;
    },
    result: (t: number, id: string, patch?: string[]) =>
      write({
        ...base(t),
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false }] },
        ...(patch ? { toolUseResult: { filePath: `${cwd}/src/app.ts`, structuredPatch: [{ lines: patch }] } } : {}),
      }),
    answer: (t: number) =>
      write(
        {
          ...base(t),
          type: 'assistant',
          message: {
            id: `msg_${session}_${n}`,
            model: 'claude-sonnet-4-5',
            role: 'assistant',
            stop_reason: 'end_turn',
            content: [{ type: 'text', text: 'Done.' }],
            usage: usage(600, 150),
          },
        },
        { ...base(t + 5), type: 'system', subtype: 'turn_duration', durationMs: 12_000 },
      ),
    failure: (t: number) =>
      write({
        ...base(t),
        type: 'assistant',
        isApiErrorMessage: true,
        error: 'server_error',
        message: {
          id: `err_${n}`,
          model: '<synthetic>',
          role: 'assistant',
          content: [{ type: 'text', text: 'API Error: 529' }],
          usage: usage(0, 0),
        },
      }),
  };
}

/** A Codex rollout: `sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`, with cumulative token totals. */
function codex(home: string, thread: string, project: string, start: number) {
  const d = new Date(start);
  const day = [
    String(d.getFullYear()),
    String(d.getMonth() + 1).padStart(2, '0'),
    String(d.getDate()).padStart(2, '0'),
  ];
  const write = writer(join(home, '.codex', 'sessions', ...day, `rollout-${day.join('-')}T00-00-00-${thread}.jsonl`));
  const total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  let n = 0;
  const line = (t: number, type: string, payload: Line) => ({ timestamp: new Date(t).toISOString(), type, payload });
  write(
    line(start, 'session_meta', {
      id: thread,
      cwd: `/home/demo/src/${project}`,
      cli_version: '0.171.0',
      source: 'cli',
      git: { branch: 'main' },
    }),
  );
  return {
    turn: (t: number) =>
      write(
        line(t, 'event_msg', { type: 'task_started', turn_id: `turn-${n}`, model_context_window: 258400 }),
        line(t, 'turn_context', { model: 'gpt-5.2-codex', cwd: `/home/demo/src/${project}` }),
        line(t + 1, 'event_msg', { type: 'user_message', message: 'next step' }),
      ),
    command: (t: number) => {
      const id = `call_${thread}_${n++}`;
      write(
        line(t, 'response_item', {
          type: 'function_call',
          name: 'exec_command',
          call_id: id,
          arguments: '{"cmd":"npm test"}',
        }),
        line(t + 300, 'response_item', {
          type: 'function_call_output',
          call_id: id,
          output: 'Process exited with code 0\nOutput:\nok\n',
        }),
      );
    },
    tokens: (t: number, usedPercent: number) => {
      const last = {
        input_tokens: 9000,
        cached_input_tokens: 7000,
        output_tokens: 300,
        reasoning_output_tokens: 120,
        total_tokens: 9300,
      };
      for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += last[k];
      write(
        line(t, 'event_msg', {
          type: 'token_count',
          info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 258400 },
          rate_limits: {
            primary: { used_percent: usedPercent, window_minutes: 300, resets_at: Math.floor(t / 1000) + 3 * 3600 },
            secondary: {
              used_percent: usedPercent / 4,
              window_minutes: 10080,
              resets_at: Math.floor(t / 1000) + 4 * 86400,
            },
          },
        }),
      );
    },
    done: (t: number) => write(line(t, 'event_msg', { type: 'task_complete', turn_id: `turn-${n}` })),
  };
}

/**
 * An OpenCode session in its SQLite database, written as OpenCode writes it (WAL mode, the
 * connection kept open): a message row touches its session, each model call ends with a
 * step-finish part, the plan is the `todo` table rewritten whole.
 */
function opencode(home: string, session: string, project: string) {
  const dir = join(home, '.local', 'share', 'opencode');
  mkdirSync(dir, { recursive: true });
  const db = openDatabase(join(dir, 'opencode.db'));
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_session_idx ON part (session_id);
    CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (session_id, position));`);
  const t0 = Date.now();
  db.prepare('INSERT INTO session VALUES (?, NULL, ?, ?, ?, ?)').run(
    session,
    `/home/demo/src/${project}`,
    'Add rate limiting',
    t0,
    t0,
  );
  let n = 0;
  let answer = '';
  const message = (t: number, data: Line) => {
    const id = `msg_demo_${n++}`;
    db.prepare('INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?, ?)').run(id, session, t, t, JSON.stringify(data));
    db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(t, session);
    return id;
  };
  const part = (t: number, data: Line) =>
    db
      .prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)')
      .run(`prt_demo_${n++}`, answer, session, t, t, JSON.stringify(data));
  const assistant = { role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic' };
  return {
    prompt: (t: number) => {
      const user = message(t, { role: 'user', time: { created: t } });
      db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(
        `prt_demo_${n++}`,
        user,
        session,
        t,
        t,
        JSON.stringify({ type: 'text', text: 'Add rate limiting' }),
      );
      answer = message(t + 10, { ...assistant, parentID: user, time: { created: t + 10 } });
      return user;
    },
    call: (t: number, tool?: string) => {
      if (tool)
        part(t, {
          type: 'tool',
          tool,
          callID: `call_demo_${n}`,
          state: { status: 'completed', input: {}, output: 'ok' },
        });
      part(t, {
        type: 'step-finish',
        reason: tool ? 'tool-calls' : 'stop',
        cost: 0,
        tokens: { input: 300, output: 120, reasoning: 40, cache: { read: 4000, write: 200 } },
      });
    },
    done: (t: number, user: string) => {
      db.prepare('UPDATE message SET time_updated = ?, data = ? WHERE id = ?').run(
        t,
        JSON.stringify({ ...assistant, parentID: user, time: { created: t - 100, completed: t }, finish: 'stop' }),
        answer,
      );
      db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(t, session);
    },
    plan: (done: number) =>
      db.transaction(() => {
        db.prepare('DELETE FROM todo WHERE session_id = ?').run(session);
        ['Read the router', 'Add the limiter', 'Test it', 'Document it'].forEach((content, i) =>
          db
            .prepare('INSERT INTO todo VALUES (?, ?, ?, ?, ?)')
            .run(session, content, i < done ? 'completed' : i === done ? 'in_progress' : 'pending', 'high', i),
        );
      })(),
    close: () => db.close(),
  };
}

/** Writes the sample home; `advance` moves the working sessions on by one step. */
export function seedDemo(home: string, now = Date.now()): { advance(): void; close(): void } {
  // Waits on the user: a question asked 12 minutes ago, still unanswered.
  const asking = claude(home, ASKING, 'webshop');
  asking.prompt(now - 13 * MIN);
  asking.tool(now - 12 * MIN, 'AskUserQuestion');
  // Stalled: a command started 20 minutes ago never returned and nothing was written since.
  const stalled = claude(home, STALLED, 'infra');
  stalled.prompt(now - 22 * MIN);
  const plan = stalled.tool(now - 21 * MIN, 'TodoWrite', 400, {
    todos: [
      { content: 'Add the health check', status: 'completed' },
      { content: 'Wire it into the load balancer', status: 'completed' },
      { content: 'Roll out to staging', status: 'in_progress' },
      { content: 'Roll out to production', status: 'pending' },
    ],
  });
  stalled.result(now - 21 * MIN + 500, plan);
  stalled.tool(now - 20 * MIN, 'Bash');
  // Failed: the API kept failing a minute ago.
  const failed = claude(home, 'demo-failed-0000-4000-8000-000000000003', 'docs-site');
  failed.prompt(now - 2 * MIN);
  failed.failure(now - MIN);

  // Working: a Claude Code session that edits, runs commands and delegates to a subagent, a Codex
  // session that runs commands, and an OpenCode session that works through its plan, all in a
  // loop of turns.
  const main = claude(home, WORKING, 'webshop');
  const sub = claude(home, WORKING, 'webshop', 'a0ad4f44468bdf20d');
  const cx = codex(home, THREAD, 'infra', now - 5 * MIN);
  const oc = opencode(home, OPENCODE_SESSION, 'api');
  let step = 0;
  let agentCall = '';
  let pending = '';
  let ocPrompt = '';
  const advance = () => {
    const t = Date.now();
    switch (step++ % 6) {
      case 0:
        main.prompt(t);
        cx.turn(t);
        ocPrompt = oc.prompt(t);
        oc.plan(0);
        break;
      case 1:
        pending = main.tool(t, 'Edit');
        cx.command(t);
        oc.call(t, 'read');
        oc.plan(1);
        break;
      case 2:
        main.result(t, pending, ['-const a = 1;', '+const a = 2;', '+export { a };']);
        agentCall = main.tool(t + 10, 'Agent');
        cx.tokens(t, 20 + (step % 60));
        oc.call(t, 'edit');
        oc.plan(2);
        break;
      case 3:
        sub.tool(t, 'Grep', 900);
        cx.command(t);
        oc.call(t, 'bash');
        oc.plan(3);
        break;
      case 4:
        main.result(t, agentCall);
        cx.tokens(t, 21 + (step % 60));
        oc.call(t, 'grep');
        break;
      case 5:
        main.answer(t);
        cx.done(t);
        oc.call(t);
        oc.done(t, ocPrompt);
        break;
    }
  };
  return { advance, close: oc.close };
}

/**
 * The sample sessions' live processes: a shell loop per agent, run under the agent's name with the
 * session on its command line (as `claude --resume <id>` is), and its short-lived children carry the
 * harness's tool marker (a tool runs). A loop ends by itself once the demo is gone. One more agent,
 * Aider, has no session file the exporter reads: it shows by its CPU alone.
 */
function startAgents(home: string): ChildProcess[] {
  const loop = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`;
  const agent = (name: string, args: string[], env: Record<string, string> = {}, cwd = home) =>
    spawn('/bin/sh', ['-c', loop, name, ...args], {
      argv0: join(home, 'bin', name),
      cwd,
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore',
    });
  const project = join(home, 'src', 'chat-bot');
  mkdirSync(project, { recursive: true });
  return [
    agent('claude', ['--resume', ASKING]),
    agent('claude', ['--resume', STALLED]),
    agent('claude', ['--resume', WORKING]),
    agent('codex', ['resume', THREAD], { CODEX_SESSION_ID: THREAD }),
    agent('opencode', ['--session', OPENCODE_SESSION], { OPENCODE: '1' }),
    agent('aider', ['--model', 'sonnet'], {}, project),
  ];
}

/**
 * Removes the sample homes demos killed with kill -9 left behind (a signal no process can catch):
 * each is named with its demo's pid, and removed once that pid is gone. Only the user's own
 * folders, never through a link.
 */
function removeLeftovers(tmp: string): void {
  const named = new RegExp(`^${DEMO_FOLDER}(\\d+)-`);
  for (const name of readdirSync(tmp)) {
    const pid = Number(named.exec(name)?.[1]);
    if (!pid || running(pid)) continue;
    const dir = join(tmp, name);
    try {
      const st = lstatSync(dir);
      if (st.isDirectory() && st.uid === process.getuid?.()) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone meanwhile (another demo starting), or not ours to remove.
    }
  }
}

/** Whether a process runs (one of another user's too: signalling it is refused, not failed). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts the demo: the sample home, the exporter serving it, and the sessions moving. */
export async function startDemo(config: Config, log: Logger): Promise<{ stop(): Promise<void> }> {
  removeLeftovers(tmpdir());
  // Named with this pid: a demo killed with kill -9 leaves it, and the next demo removes it. Its
  // stand-in agents run from it, which tells an exporter beside the demo they are no real agents.
  const home = mkdtempSync(join(tmpdir(), `${DEMO_FOLDER}${process.pid}-`));
  // However the process ends (stopped, refused at start-up, crashed), the sample home goes with it.
  process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  const { advance, close } = seedDemo(home);
  const agents = config.processes.enabled ? startAgents(home) : [];
  // Three steps in: an edit made, a subagent started, usage limits reported.
  for (let i = 0; i < 3; i++) advance();
  // Every harness at its default place in the sample home, and nowhere else.
  const demoConfig: Config = {
    ...config,
    stateDir: join(home, 'state'),
    collectors: Object.fromEntries(Object.keys(config.collectors).map((name) => [name, { enabled: true, roots: [] }])),
  };
  // Only the agents started here: the user's own agents (or another demo's) are not the demo's.
  const exporter = new Exporter(demoConfig, log, { env: {}, home, ownProcessesOnly: true });
  const { url } = await exporter.start();
  log.info('demo running', { home, metrics: `${url}${config.metricsPath}` });
  const timer = setInterval(advance, TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      for (const a of agents) a.kill();
      await exporter.stop();
      close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
