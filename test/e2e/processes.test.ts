// Real processes, started under a harness's executable name (a link to node named `codex`,
// `claude`, `aider`), found in this machine's /proc by the real binary and joined to the sessions
// in a temporary home by each attribution method.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CPU_BUSY_RATIO } from '../../src/process/monitor.js';
import { envFor, run, sum, tempDir, until } from '../helpers/run.js';

const THREAD = '01a22a3d-05e6-72a3-9eaf-d395a9e9befd';
const bin = tempDir('cae-bin-');
const home = tempDir('cae-home-');
const project = join(tempDir('cae-src-'), 'demo-app');
const rolloutPath = join(home, '.codex', 'sessions', '2026', '11', '30', `rollout-2026-11-30T10-00-00-${THREAD}.jsonl`);
const children: ChildProcess[] = [];
const toolPidFile = join(bin, 'tool.pid');
const claudeToolPidFile = join(bin, 'claude-tool.pid');

/** A node script run under a harness's name. */
function start(name: string, script: string, args: string[] = [], cwd = bin): ChildProcess {
  const file = join(bin, `${name}-${children.length}.js`);
  writeFileSync(file, script);
  const child = spawn(join(bin, name), [file, ...args], { cwd, stdio: 'ignore' });
  children.push(child);
  return child;
}
const idle = 'setInterval(() => {}, 1000);';

const at = (s: number) => new Date(Date.now() + s * 1000).toISOString();

function writeRollout(): void {
  mkdirSync(join(home, '.codex', 'sessions', '2026', '11', '30'), { recursive: true });
  const line = (s: number, type: string, payload: object) => `${JSON.stringify({ timestamp: at(s), type, payload })}\n`;
  writeFileSync(
    rolloutPath,
    line(0, 'session_meta', { id: THREAD, cwd: '/elsewhere' }) +
      line(0, 'event_msg', { type: 'task_started' }) +
      line(0, 'turn_context', { cwd: '/elsewhere', model: 'gpt-5' }) +
      line(1, 'event_msg', { type: 'user_message', message: 'x' }) +
      line(1, 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: 10, output_tokens: 2 } },
      }) +
      line(2, 'response_item', { type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: '{}' }),
  );
}

function writeTranscripts(): void {
  for (const [id, cwd] of [
    ['resumed', '/elsewhere'],
    ['here', project],
    ['registered', '/elsewhere'],
    ['tooled', '/elsewhere'],
  ] as const) {
    const dir = join(home, '.claude', 'projects', cwd.replace(/\//g, '-'));
    mkdirSync(dir, { recursive: true });
    const rec = (o: object) => `${JSON.stringify({ cwd, timestamp: at(1), ...o })}\n`;
    writeFileSync(
      join(dir, `${id}.jsonl`),
      rec({ type: 'user', uuid: `${id}-u`, message: { content: 'go' } }) +
        rec({
          type: 'assistant',
          message: {
            id: `${id}-m`,
            model: 'claude-sonnet-4-5',
            stop_reason: 'end_turn',
            content: [],
            usage: { input_tokens: 5, output_tokens: 1 },
          },
        }),
    );
  }
}

const env = () =>
  envFor(home, {
    CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true',
    CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
  });
let codex: ChildProcess;
let aider: ChildProcess;

beforeAll(async () => {
  for (const name of ['codex', 'claude', 'aider']) symlinkSync(process.execPath, join(bin, name));
  mkdirSync(project, { recursive: true });
  writeRollout();
  // The other processes start before their sessions: the cwd heuristic takes sessions written after a process started.
  // The Codex process holds the rollout open and runs a tool, which carries the thread's id.
  codex = start(
    'codex',
    `require('fs').openSync(process.argv[2], 'r');
    const tool = require('child_process').spawn('sleep', ['300'], { env: { ...process.env, CODEX_SESSION_ID: '${THREAD}' }, stdio: 'ignore' });
    require('fs').writeFileSync(process.argv[3], String(tool.pid)); ${idle}`,
    [rolloutPath, toolPidFile],
  );
  start('claude', idle, ['--resume', 'resumed']);
  start('claude', idle, [], project);
  // Claude Code registers itself with its start time (field 22 of /proc/<pid>/stat) and what it waits for.
  mkdirSync(join(home, '.claude', 'sessions'), { recursive: true });
  start(
    'claude',
    `const fs = require('fs');
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    fs.writeFileSync(process.argv[2] + '/' + process.pid + '.json', JSON.stringify({ pid: process.pid, sessionId: 'registered', procStart,
      status: 'waiting', waitingFor: 'permission prompt' })); ${idle}`,
    [join(home, '.claude', 'sessions')],
  );
  // Its tool processes carry the session's id.
  start(
    'claude',
    `const tool = require('child_process').spawn('sleep', ['300'], { env: { ...process.env, CLAUDE_CODE_SESSION_ID: 'tooled' }, stdio: 'ignore' });
    require('fs').writeFileSync(process.argv[2], String(tool.pid)); ${idle}`,
    [claudeToolPidFile],
  );
  aider = start('aider', 'for (;;) {}', ['--model', 'x']);
  // Each process started (forked) before its session's records, whose times are a second ahead;
  // the agents whose tools carry a session's id have started those tools.
  await until(
    async () => ([toolPidFile, claudeToolPidFile].every((f) => existsSync(f)) ? true : undefined),
    30_000,
    "the agents' tools",
  );
  writeTranscripts();
});

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  // The tools outlive their killed agents, as real ones do.
  for (const f of [toolPidFile, claudeToolPidFile])
    if (existsSync(f)) process.kill(Number(readFileSync(f, 'utf8')), 'SIGKILL');
});

describe('live processes', () => {
  it('joins each to its session by the method it allows (registry, open file, environment, command line, cwd), and shows an agent with no session by its CPU', () => {
    const r = run(['sessions', '--json', '--state-dir', tempDir()], env());
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout) as {
      harness: string;
      session_id: string | null;
      status: string;
      reason: string;
      attribution: string;
      process: { pid: number; cpu_ratio: number; resident_memory_bytes: number } | null;
    }[];
    const row = (harness: string, id: string | null, pid?: number) =>
      rows.find((x) => x.harness === harness && x.session_id === id && (pid === undefined || x.process?.pid === pid));
    // A pending command with a tool process carrying the thread's id: it runs (with none, it would wait for approval).
    expect(row('codex', THREAD)).toMatchObject({
      status: 'working',
      reason: 'turn-open',
      attribution: 'open-file',
      process: { pid: codex.pid },
    });
    expect(row('claude-code', 'resumed')).toMatchObject({
      attribution: 'command-line',
      process: { pid: children[1]!.pid },
    });
    expect(row('claude-code', 'here')).toMatchObject({ attribution: 'cwd', process: { pid: children[2]!.pid } });
    expect(row('claude-code', 'registered')).toMatchObject({
      status: 'asking',
      reason: 'approval',
      attribution: 'registry',
      process: { pid: children[3]!.pid },
    });
    expect(row('claude-code', 'tooled')).toMatchObject({
      attribution: 'environment',
      process: { pid: children[4]!.pid },
    });
    // Its status is its CPU's: a busy loop left little CPU by a loaded machine is rightly idle.
    const busy = row('aider', null, aider.pid);
    expect(busy!.process!.cpu_ratio).toBeGreaterThan(0);
    expect(busy).toMatchObject(
      busy!.process!.cpu_ratio >= CPU_BUSY_RATIO
        ? { status: 'working', reason: 'cpu-busy', attribution: 'process-only' }
        : { status: 'idle', reason: 'cpu-idle', attribution: 'process-only' },
    );
    expect(busy!.process!.resident_memory_bytes).toBeGreaterThan(1 << 20);
  });

  it('counts a turn cut off by a kill once, as interrupted, and the session leaves working at once', async () => {
    const state = tempDir();
    const first = run(['once', '--state-dir', state], env());
    expect(sum(first.stdout, 'coding_agent_session_status', { harness: 'codex', status: 'working' })).toBe(1);
    expect(sum(first.stdout, 'coding_agent_processes', { harness: 'aider' })).toBeGreaterThanOrEqual(1);
    // Killed: its tool lives on, orphaned, still carrying the thread's id, and is no work.
    codex.kill('SIGKILL');
    await new Promise((r) => codex.once('exit', r));
    expect(existsSync(`/proc/${readFileSync(toolPidFile, 'utf8')}`)).toBe(true);
    const second = run(['once', '--state-dir', state], env());
    expect(sum(second.stdout, 'coding_agent_turns_total', { harness: 'codex', outcome: 'interrupted' })).toBe(1);
    expect(sum(second.stdout, 'coding_agent_session_status', { harness: 'codex', status: 'working' })).toBe(0);
    const third = run(['once', '--state-dir', state], env());
    expect(sum(third.stdout, 'coding_agent_turns_total', { harness: 'codex', outcome: 'interrupted' })).toBe(1);
  });
});
