// Gemini CLI killed mid-turn (issue 24). Its file records the answer before a tool call as if it
// ended the turn, and the call only once it ran: a kill while the tool runs or waits for approval
// leaves a file that looks finished. The turn is counted once, as interrupted, where the process
// table or a hook says the turn went on; a turn that did finish is counted once, as completed.

import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { hookRecord, SPOOL_FILE } from '../../src/hooks/spool.js';
import { createLogger } from '../../src/log.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const CWD = '/home/dev/src/demo-app';
const LAUNCHER = 4000;
const WORKER = 4001;
const TOOL = 4050;
const SID = '5da0c0d6-ad8a-42cd-969c-34c4a9293815';
// The capture's prompt and its first answer (the one before the tool call).
const PROMPT_AT = Date.parse('2026-11-30T02:16:17.677Z');
const ANSWER_AT = Date.parse('2026-11-30T02:16:17.773Z');

/**
 * The capture's home, its chat file cut after `lines` lines (6: the answer before its tool call,
 * nothing after), and a function that writes the rest.
 */
function home(lines?: number): { dir: string; rest: () => void } {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'captures', 'gemini-cli', 'tool'), dir, { recursive: true });
  const chats = join(dir, '.gemini', 'tmp', 'demo-app', 'chats');
  const file = join(
    chats,
    readdirSync(chats).find((n) => n.endsWith('.jsonl'))!,
  );
  const whole = readFileSync(file, 'utf8');
  if (lines !== undefined) writeFileSync(file, `${whole.split('\n').slice(0, lines).join('\n')}\n`);
  return { dir, rest: () => writeFileSync(file, whole) };
}

/** Hook events as Gemini CLI's hooks spool them, `[event, ms after the answer, payload]`. */
function hooks(stateDir: string, events: [string, number, Record<string, unknown>?][]): void {
  const lines = events.map(([name, after, extra]) => {
    const r = hookRecord(
      'gemini-cli',
      { hook_event_name: name, session_id: SID, cwd: CWD, ...extra },
      ANSWER_AT + after,
      name,
      WORKER,
    );
    return JSON.stringify(r);
  });
  writeFileSync(join(stateDir, SPOOL_FILE), `${lines.join('\n')}\n`);
}

interface Run {
  /** Chat file lines kept (all by default). */
  lines?: number;
  /** The agent runs while the exporter first reads. */
  running?: boolean;
  tool?: boolean;
  hookEvents?: [string, number, Record<string, unknown>?][];
  /** After the first read, the CLI writes the rest of the file: the tool ran, the turn finished. */
  finish?: true;
  /** What happens to the agent after the first read. */
  then?: 'killed' | 'quit';
}

async function run(r: Run) {
  const proc = fakeProc();
  const stateDir = tempDir();
  if (r.hookEvents) hooks(stateDir, r.hookEvents);
  if (r.running) {
    proc.add(LAUNCHER, {
      argv: ['node', '/usr/lib/node_modules/@google/gemini-cli/bin/gemini', '-m', 'gemini-2.5-flash'],
      cwd: CWD,
    });
    proc.add(WORKER, {
      ppid: LAUNCHER,
      argv: [
        '/usr/bin/node',
        '--max-old-space-size=4096',
        '/usr/lib/node_modules/@google/gemini-cli/bin/gemini',
        '-m',
        'x',
      ],
      cwd: CWD,
    });
  }
  if (r.tool) proc.add(TOOL, { ppid: WORKER, argv: ['/bin/bash', '-c', 'sleep 30'], env: { GEMINI_CLI: '1' } });
  const files = home(r.lines);
  const env = {
    HOME: files.dir,
    CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root,
    CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
  };
  const agent = new Exporter(loadConfig(['--state-dir', stateDir], env), createLogger('error'), {
    env,
    home: env.HOME,
  });
  await agent.scanAll();
  if (r.finish) {
    rmSync(join(proc.root, String(TOOL)), { recursive: true, force: true });
    files.rest();
    await agent.scanAll();
  }
  if (r.then) {
    // SIGKILL of the worker (the launcher exits with it, the tool dies with its PTY), or a quit.
    for (const pid of [TOOL, WORKER, LAUNCHER]) rmSync(join(proc.root, String(pid)), { recursive: true, force: true });
    await agent.scanAll();
  }
  const turns = (outcome: string) =>
    [...agent.store.counters.values()]
      .filter((c) => c.metric === 'turns' && c.labels.outcome === outcome)
      .reduce((n, c) => n + c.value, 0);
  const counted = { completed: turns('completed'), interrupted: turns('interrupted') };
  await agent.stop();
  return counted;
}

describe('Gemini CLI killed mid-turn', () => {
  it('counts a turn cut off while its tool ran as interrupted, not completed', async () => {
    expect(await run({ lines: 6, running: true, tool: true, then: 'killed' })).toEqual({
      completed: 0,
      interrupted: 1,
    });
  });

  it('counts a turn cut off while it waited for approval as interrupted, where hooks said so', async () => {
    const events: [string, number, Record<string, unknown>?][] = [
      ['BeforeAgent', PROMPT_AT - ANSWER_AT],
      ['BeforeTool', 1000, { tool_name: 'run_shell_command' }],
      ['Notification', 2000, { notification_type: 'ToolPermission', details: { type: 'exec' } }],
    ];
    expect(await run({ lines: 6, running: true, hookEvents: events, then: 'killed' })).toEqual({
      completed: 0,
      interrupted: 1,
    });
  });

  it('counts a finished turn once as completed when the CLI quits', async () => {
    expect(await run({ running: true, then: 'quit' })).toEqual({ completed: 1, interrupted: 0 });
  });

  it('counts a turn whose tool ran and that then finished once as completed', async () => {
    expect(await run({ lines: 6, running: true, tool: true, finish: true, then: 'quit' })).toEqual({
      completed: 1,
      interrupted: 0,
    });
  });

  it('counts a finished turn as completed at once where a hook says the turn ended', async () => {
    expect(await run({ running: true, hookEvents: [['AfterAgent', 100]] })).toEqual({ completed: 1, interrupted: 0 });
  });

  it('counts the turns of a session no process runs as its file says', async () => {
    expect(await run({})).toEqual({ completed: 1, interrupted: 0 });
    // Without hooks, an approval and a finished turn leave the same file and the same idle process.
    expect(await run({ lines: 6 })).toEqual({ completed: 1, interrupted: 0 });
  });
});
