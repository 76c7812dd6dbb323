// `demo`: live metrics without any agent installed. Sample sessions, shaped like the real CLIs'
// files (test/fixtures/captures), are written into a temporary home and kept going: two sessions
// keep working (Claude Code with a subagent, Codex with usage limits), one waits on the user, one
// has stalled mid-turn, one failed. The exporter reads that home like any other.

import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../agent.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';

const TICK_MS = 2000;
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
  const write = writer(subagent ? join(dir, session, 'subagents', `agent-${subagent}.jsonl`) : join(dir, `${session}.jsonl`));
  let n = 0;
  const base = (t: number) => ({ sessionId: session, cwd, gitBranch: 'main', version: '2.1.332', timestamp: new Date(t).toISOString(), isSidechain: !!subagent, uuid: `${session}-${subagent ?? ''}-${n++}` });
  const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_read_input_tokens: input * 12, cache_creation_input_tokens: Math.round(input / 3) });
  return {
    prompt: (t: number) => write({ ...base(t), type: 'user', message: { role: 'user', content: 'Continue with the next step' } }),
    tool: (t: number, name: string, input = 400, args: Line = {}) => {
      const id = `toolu_${session}_${n}`;
      write({ ...base(t), type: 'assistant', message: { id: `msg_${session}_${n}`, model: 'claude-sonnet-4-5', role: 'assistant', stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id, name, input: args }], usage: usage(input, 80) } });
      return id;
    },
    result: (t: number, id: string, patch?: string[]) => write({ ...base(t), type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false }] },
      ...(patch ? { toolUseResult: { filePath: `${cwd}/src/app.ts`, structuredPatch: [{ lines: patch }] } } : {}) }),
    answer: (t: number) => write(
      { ...base(t), type: 'assistant', message: { id: `msg_${session}_${n}`, model: 'claude-sonnet-4-5', role: 'assistant', stop_reason: 'end_turn',
        content: [{ type: 'text', text: 'Done.' }], usage: usage(600, 150) } },
      { ...base(t + 5), type: 'system', subtype: 'turn_duration', durationMs: 12_000 },
    ),
    failure: (t: number) => write({ ...base(t), type: 'assistant', isApiErrorMessage: true, error: 'server_error',
      message: { id: `err_${n}`, model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529' }], usage: usage(0, 0) } }),
  };
}

/** A Codex rollout: `sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`, with cumulative token totals. */
function codex(home: string, thread: string, project: string, start: number) {
  const d = new Date(start);
  const day = [String(d.getFullYear()), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')];
  const write = writer(join(home, '.codex', 'sessions', ...day, `rollout-${day.join('-')}T00-00-00-${thread}.jsonl`));
  const total = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 };
  let n = 0;
  const line = (t: number, type: string, payload: Line) => ({ timestamp: new Date(t).toISOString(), type, payload });
  write(line(start, 'session_meta', { id: thread, cwd: `/home/demo/src/${project}`, cli_version: '0.171.0', source: 'cli', git: { branch: 'main' } }));
  return {
    turn: (t: number) => write(
      line(t, 'event_msg', { type: 'task_started', turn_id: `turn-${n}`, model_context_window: 258400 }),
      line(t, 'turn_context', { model: 'gpt-5.2-codex', cwd: `/home/demo/src/${project}` }),
      line(t + 1, 'event_msg', { type: 'user_message', message: 'next step' }),
    ),
    command: (t: number) => {
      const id = `call_${thread}_${n++}`;
      write(
        line(t, 'response_item', { type: 'function_call', name: 'exec_command', call_id: id, arguments: '{"cmd":"npm test"}' }),
        line(t + 300, 'response_item', { type: 'function_call_output', call_id: id, output: 'Process exited with code 0\nOutput:\nok\n' }),
      );
    },
    tokens: (t: number, usedPercent: number) => {
      const last = { input_tokens: 9000, cached_input_tokens: 7000, output_tokens: 300, reasoning_output_tokens: 120, total_tokens: 9300 };
      for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += last[k];
      write(line(t, 'event_msg', { type: 'token_count', info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 258400 },
        rate_limits: { primary: { used_percent: usedPercent, window_minutes: 300, resets_at: Math.floor(t / 1000) + 3 * 3600 },
          secondary: { used_percent: usedPercent / 4, window_minutes: 10080, resets_at: Math.floor(t / 1000) + 4 * 86400 } } }));
    },
    done: (t: number) => write(line(t, 'event_msg', { type: 'task_complete', turn_id: `turn-${n}` })),
  };
}

/** Writes the sample home; returns a function that advances the working sessions by one step. */
export function seedDemo(home: string, now = Date.now()): () => void {
  // Waits on the user: a question asked 12 minutes ago, still unanswered.
  const asking = claude(home, 'demo-asking-0000-4000-8000-000000000001', 'webshop');
  asking.prompt(now - 13 * MIN);
  asking.tool(now - 12 * MIN, 'AskUserQuestion');
  // Stalled: a command started 20 minutes ago never returned and nothing was written since.
  const stalled = claude(home, 'demo-stalled-000-4000-8000-000000000002', 'infra');
  stalled.prompt(now - 22 * MIN);
  const plan = stalled.tool(now - 21 * MIN, 'TodoWrite', 400, { todos: [
    { content: 'Add the health check', status: 'completed' }, { content: 'Wire it into the load balancer', status: 'completed' },
    { content: 'Roll out to staging', status: 'in_progress' }, { content: 'Roll out to production', status: 'pending' }] });
  stalled.result(now - 21 * MIN + 500, plan);
  stalled.tool(now - 20 * MIN, 'Bash');
  // Failed: the API kept failing a minute ago.
  const failed = claude(home, 'demo-failed-0000-4000-8000-000000000003', 'docs-site');
  failed.prompt(now - 2 * MIN);
  failed.failure(now - MIN);

  // Working: a Claude Code session that edits, runs commands and delegates to a subagent, and a
  // Codex session that runs commands, both in a loop of turns.
  const sid = 'demo-working-000-4000-8000-000000000004';
  const main = claude(home, sid, 'webshop');
  const sub = claude(home, sid, 'webshop', 'a0ad4f44468bdf20d');
  const cx = codex(home, '019fc8be-3658-7ca3-9000-000000000005', 'infra', now - 5 * MIN);
  let step = 0;
  let agentCall = '';
  let pending = '';
  return () => {
    const t = Date.now();
    switch (step++ % 6) {
      case 0: main.prompt(t); cx.turn(t); break;
      case 1: pending = main.tool(t, 'Edit'); cx.command(t); break;
      case 2: main.result(t, pending, ['-const a = 1;', '+const a = 2;', '+export { a };']); agentCall = main.tool(t + 10, 'Agent'); cx.tokens(t, 20 + (step % 60)); break;
      case 3: sub.tool(t, 'Grep', 900); cx.command(t); break;
      case 4: main.result(t, agentCall); cx.tokens(t, 21 + (step % 60)); break;
      case 5: main.answer(t); cx.done(t); break;
    }
  };
}

/** Starts the demo: the sample home, the exporter serving it, and the sessions moving. */
export async function startDemo(config: Config, log: Logger): Promise<{ stop(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'coding-agent-exporter-demo-'));
  const advance = seedDemo(home);
  // Three steps in: an edit made, a subagent started, usage limits reported.
  for (let i = 0; i < 3; i++) advance();
  const demoConfig: Config = {
    ...config,
    stateDir: join(home, 'state'),
    collectors: {
      ...config.collectors,
      'claude-code': { enabled: true, roots: [join(home, '.claude')] },
      codex: { enabled: true, roots: [join(home, '.codex')] },
    },
  };
  const agent = new Agent(demoConfig, log, { env: {}, home });
  const { host, port } = await agent.start();
  log.info('demo running', { home, metrics: `http://${host}:${port}${config.metricsPath}` });
  const timer = setInterval(advance, TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await agent.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
