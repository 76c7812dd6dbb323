// The four interactive states (approval, question, tool running, killed mid-turn) of the six
// harnesses whose real CLIs were driven into each (the interactive-states reference). The session
// files are the captures' own, cut where the state leaves them (nothing is written while a tool
// runs or waits), with the registry or event the reference shows; the processes are a fake /proc
// laid out as the reference saw them.

import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../helpers/sqlite.js';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { fakeProc, type FakeProcess } from '../helpers/fake-proc.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

type State = 'approval' | 'question' | 'tool-running' | 'killed';
const CWD = '/home/dev/src/demo-app';
const AGENT = 4000;
const START = 1000; // clock ticks after boot: long before the captures were written

interface Case {
  /** Writes the session files of the state into a copy of the capture's home. */
  files(home: string, state: State): void;
  /** The agent's processes (its tools' added by the test). */
  agent: (home: string) => { pid: number; p: FakeProcess }[];
  /** The variables a tool process of this harness carries. */
  toolEnv: Record<string, string>;
  /** A process other than the agent that runs the tools (Codex's app-server). */
  toolParent?: number;
  /** Where the state differs from the others': the reference's "not observable" among them. */
  expected?: Partial<Record<State, [string, string]>>;
  /** Killed: agent processes that exited and are zombies until their parent reaps them. */
  zombies?: number[];
  /** Killed: processes of the agent's that outlive the kill. */
  survivors?: number[];
}

function capture(folder: string): string {
  const home = tempDir();
  cpSync(join(FIXTURES, 'captures', folder, 'tool'), home, { recursive: true });
  return home;
}

/** Keeps the first `n` lines of a JSONL file, each passed through `edit`. */
function cut(path: string, n: number, edit: (line: string) => string = (l) => l, extra: string[] = []): void {
  const lines = readFileSync(path, 'utf8').split('\n').slice(0, n).map(edit);
  writeFileSync(path, `${[...lines, ...extra].join('\n')}\n`);
}

const only = (dir: string, suffix: string) =>
  join(
    dir,
    readdirSync(dir).find((n) => n.endsWith(suffix))!,
  );

const CLAUDE_SID = '6d19f2ed-eb37-4f1a-9384-e4d06dc115a7';
const CODEX_SID = '01a22a3d-05e6-72a3-9eaf-d395a9e9befd';
const COPILOT_SID = '3c795f57-b9ef-4b14-9d76-5cb02fc6f9f0';
const QWEN_SID = 'eb416b2c-8b91-4d23-b45a-d50f3f984b97';

const CASES: Record<string, Case> = {
  'claude-code': {
    files(home, state) {
      // Up to the Bash call and the metadata after it, no tool result; the registry says what the process does.
      const dir = join(home, '.claude', 'projects', '-home-dev-src-demo-app');
      cut(
        join(dir, `${CLAUDE_SID}.jsonl`),
        22,
        state === 'question' ? (l) => l.replace('"name":"Bash"', '"name":"AskUserQuestion"') : undefined,
      );
      mkdirSync(join(home, '.claude', 'sessions'), { recursive: true });
      const status =
        state === 'approval'
          ? { status: 'waiting', waitingFor: 'permission prompt' }
          : state === 'question'
            ? { status: 'waiting', waitingFor: 'input needed' }
            : { status: 'busy' };
      writeFileSync(
        join(home, '.claude', 'sessions', `${AGENT}.json`),
        JSON.stringify({ pid: AGENT, sessionId: CLAUDE_SID, cwd: CWD, procStart: String(START), ...status }),
      );
    },
    agent: () => [
      { pid: AGENT, p: { argv: ['/home/dev/.local/bin/claude', '--model', 'claude-sonnet-4-5'], cwd: CWD } },
    ],
    toolEnv: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: CLAUDE_SID },
    expected: { 'tool-running': ['working', 'process-busy'] },
  },
  codex: {
    files(home, state) {
      const rollout = only(join(home, '.codex', 'sessions', '2026', '11', '30'), '.jsonl');
      cut(
        rollout,
        11,
        state === 'question' ? (l) => l.replace('"name":"exec_command"', '"name":"request_user_input"') : undefined,
      );
    },
    // The TUI (npm wrapper and native binary), and the app-server daemon that runs the turns and holds the rollout.
    agent: (home) => [
      { pid: AGENT, p: { argv: ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'], cwd: CWD } },
      { pid: AGENT + 1, p: { ppid: AGENT, argv: ['/usr/lib/node_modules/@openai/codex/vendor/codex'], cwd: CWD } },
      {
        pid: AGENT + 2,
        p: {
          argv: ['/home/dev/.codex/packages/bin/codex', 'app-server', '--listen', 'unix://', '--managed-daemon'],
          cwd: '/',
          open: [only(join(home, '.codex', 'sessions', '2026', '11', '30'), '.jsonl')],
        },
      },
      // The daemon's helper, started from the project like the TUI; it outlives TUI and daemon.
      {
        pid: AGENT + 3,
        p: { argv: ['/home/dev/.codex/packages/bin/codex', 'app-server', 'daemon', 'pid-update-loop'], cwd: CWD },
      },
    ],
    toolParent: AGENT + 2,
    toolEnv: { CODEX_SESSION_ID: CODEX_SID },
    survivors: [AGENT + 3],
  },
  'gemini-cli': {
    files(home) {
      // The answer before its tool call, saved without it: what approval, question and a running tool all leave.
      cut(only(join(home, '.gemini', 'tmp', 'demo-app', 'chats'), '.jsonl'), 6);
    },
    agent: () => [
      {
        pid: AGENT,
        p: {
          argv: ['node', '/usr/lib/node_modules/@google/gemini-cli/bin/gemini', '-m', 'gemini-2.5-flash'],
          cwd: CWD,
        },
      },
      {
        pid: AGENT + 1,
        p: {
          ppid: AGENT,
          argv: [
            '/usr/bin/node',
            '--max-old-space-size=4096',
            '/usr/lib/node_modules/@google/gemini-cli/bin/gemini',
            '-m',
            'x',
          ],
          cwd: CWD,
        },
      },
    ],
    toolParent: AGENT + 1,
    toolEnv: { GEMINI_CLI: '1' },
    // Not observable (the reference): an approval and a question look like the turn that finished
    // (the day before); only a running tool's child process tells, and so a kill while it ran
    // cuts the turn off.
    expected: { approval: ['idle', 'quiet'], question: ['idle', 'quiet'], 'tool-running': ['working', 'process-busy'] },
  },
  'qwen-code': {
    files(home, state) {
      cut(
        join(home, '.qwen', 'projects', '-home-dev-src-demo-app', 'chats', `${QWEN_SID}.jsonl`),
        4,
        state === 'question' ? (l) => l.replace('"name":"run_shell_command"', '"name":"ask_user_question"') : undefined,
      );
      mkdirSync(join(home, '.qwen', 'sessions'), { recursive: true });
      writeFileSync(
        join(home, '.qwen', 'sessions', `${AGENT + 2}.json`),
        JSON.stringify({
          schemaVersion: 1,
          pid: AGENT + 2,
          procStart: `boot-id:${START}`,
          sessionId: QWEN_SID,
          cwd: CWD,
          kind: 'tui',
        }),
      );
    },
    agent: () => [
      {
        pid: AGENT,
        p: {
          argv: ['node', '/usr/lib/node_modules/@qwen-code/qwen-code/bin/qwen', '--approval-mode', 'default'],
          cwd: CWD,
        },
      },
      {
        pid: AGENT + 1,
        p: {
          ppid: AGENT,
          argv: ['node', '--expose-gc', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js'],
          cwd: CWD,
        },
      },
      {
        pid: AGENT + 2,
        p: {
          ppid: AGENT + 1,
          argv: ['node', '--expose-gc', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js'],
          cwd: CWD,
        },
      },
    ],
    toolParent: AGENT + 2,
    toolEnv: { QWEN_CODE: '1' },
  },
  opencode: {
    files(home, state) {
      // The last assistant message is under way on a running tool part (no step-finish, no final answer).
      const db = new Database(join(home, '.local', 'share', 'opencode', 'opencode.db'));
      const tool = db
        .prepare("SELECT id, message_id, time_created FROM part WHERE json_extract(data, '$.type') = 'tool'")
        .get() as { id: string; message_id: string; time_created: number };
      db.prepare('DELETE FROM part WHERE time_created > ?').run(tool.time_created);
      db.prepare('DELETE FROM message WHERE time_created > (SELECT time_created FROM message WHERE id = ?)').run(
        tool.message_id,
      );
      db.prepare(
        "UPDATE message SET data = json_remove(json_remove(data, '$.time.completed'), '$.finish') WHERE id = ?",
      ).run(tool.message_id);
      const name = state === 'question' ? 'question' : 'bash';
      db.prepare(
        "UPDATE part SET data = json_set(json_remove(data, '$.state.output', '$.state.metadata', '$.state.time.end'), '$.state.status', 'running', '$.tool', ?) WHERE id = ?",
      ).run(name, tool.id);
      db.close();
    },
    agent: () => [{ pid: AGENT, p: { argv: ['/home/dev/.opencode/bin/opencode'], cwd: CWD } }],
    toolEnv: { OPENCODE: '1', OPENCODE_PID: String(AGENT) },
  },
  'copilot-cli': {
    files(home, state) {
      const dir = join(home, '.copilot', 'session-state', COPILOT_SID);
      const events = join(dir, 'events.jsonl');
      const callId = /"toolCallId":"([^"]+)"/.exec(readFileSync(events, 'utf8').split('\n')[6]!)![1];
      const event = (type: string, data: object) =>
        JSON.stringify({ type, data, id: `e-${type}`, timestamp: '2026-11-30T02:16:30.000Z', parentId: null });
      const requested = event('permission.requested', {
        requestId: 'r1',
        permissionRequest: { kind: 'shell', toolCallId: callId, fullCommandText: 'sleep 30' },
      });
      const completed = event('permission.completed', {
        requestId: 'r1',
        result: { kind: 'approved' },
        decisionSource: 'human_response',
      });
      if (state === 'question') cut(events, 7, (l) => l.replace('"toolName":"bash"', '"toolName":"ask_user"'));
      else cut(events, 7, undefined, state === 'approval' ? [requested] : [requested, completed]);
      writeFileSync(join(dir, `inuse.${AGENT + 1}.lock`), String(AGENT + 1));
    },
    agent: () => [
      { pid: AGENT, p: { argv: ['node', '/usr/lib/node_modules/@github/copilot/index.js'], cwd: CWD } },
      {
        pid: AGENT + 1,
        p: { ppid: AGENT, argv: ['/usr/lib/node_modules/@github/copilot-linux-x64/copilot'], cwd: CWD },
      },
    ],
    toolParent: AGENT + 1,
    toolEnv: { COPILOT_AGENT_SESSION_ID: COPILOT_SID },
    // The loader exits when its native process is killed; seen unreaped by its parent.
    zombies: [AGENT],
  },
};

const CAPTURE: Record<string, string> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  'gemini-cli': 'gemini-cli',
  'qwen-code': 'qwen-code',
  opencode: 'opencode',
  'copilot-cli': 'copilot-cli',
};
const DEFAULT: Record<State, [string, string]> = {
  approval: ['asking', 'approval'],
  question: ['asking', 'question'],
  'tool-running': ['working', 'turn-open'],
  killed: ['done', 'recent'],
};

async function observe(harness: string, state: State) {
  const c = CASES[harness]!;
  const home = capture(CAPTURE[harness]!);
  c.files(home, state);
  const proc = fakeProc();
  for (const { pid, p } of c.agent(home)) proc.add(pid, { startTicks: START, ...p });
  const tool = AGENT + 50;
  if (state === 'tool-running' || state === 'killed') {
    proc.add(tool, {
      ppid: c.toolParent ?? AGENT,
      argv: ['/bin/bash', '-c', 'sleep 30'],
      env: { ...c.toolEnv, PATH: '/bin', API_KEY: 'secret' },
    });
  }
  const env = {
    HOME: home,
    CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root,
    CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
  };
  const agent = new Exporter(loadConfig(['--state-dir', tempDir()], env), createLogger('error'), { env, home });
  await agent.scanAll();
  let teardown: string[] | undefined;
  if (state === 'killed') {
    // A hang-up (Qwen Code's launcher killed) ends the tool a moment before the agent: seen in between.
    rmSync(join(proc.root, String(tool)), { recursive: true });
    await agent.scanAll();
    const [mid] = agent.sessions().filter((l) => l.session.harness === harness);
    teardown = mid ? [mid.status.status, mid.status.reason] : undefined;
    // SIGKILL: the agent's processes go (but for its survivors); the tool survives, orphaned to pid 1.
    for (const { pid } of c.agent(home)) {
      if (c.zombies?.includes(pid)) proc.exit(pid);
      else if (!c.survivors?.includes(pid)) rmSync(join(proc.root, String(pid)), { recursive: true });
    }
    proc.add(tool, { ppid: 1, argv: ['sleep', '30'], env: c.toolEnv });
    await agent.scanAll();
  }
  const [live] = agent.sessions().filter((l) => l.session.harness === harness);
  const interrupted = [...agent.store.counters.values()]
    .filter((x) => x.metric === 'turns' && x.labels.outcome === 'interrupted')
    .reduce((a, x) => a + x.value, 0);
  const { unowned } = agent.store.processes;
  await agent.stop();
  return {
    status: live ? [live.status.status, live.status.reason] : undefined,
    attribution: live?.process?.attribution,
    interrupted,
    unowned,
    teardown,
  };
}

// How each harness's session is joined to its process: the exact method where the harness offers one.
const ATTRIBUTION: Record<string, string> = {
  'claude-code': 'registry',
  codex: 'open-file',
  'gemini-cli': 'cwd',
  'qwen-code': 'registry',
  opencode: 'cwd',
  'copilot-cli': 'registry',
};

describe.each(Object.keys(CASES))('%s, run interactively', (harness) => {
  it.each(['approval', 'question', 'tool-running', 'killed'] as State[])('%s', async (state) => {
    const seen = await observe(harness, state);
    expect(seen.status).toEqual(CASES[harness]!.expected?.[state] ?? DEFAULT[state]);
    expect(seen.interrupted).toBe(state === 'killed' ? 1 : 0);
    expect(seen.attribution).toBe(state === 'killed' ? undefined : ATTRIBUTION[harness]);
    // What the kill leaves (a zombie, a daemon's helper) is no agent of its own.
    if (state === 'killed') expect(seen.unowned).toEqual([]);
    // While the agent is torn down it does not flap into asking: its tool ran, the wait was over.
    if (state === 'killed') expect(seen.teardown?.[0]).not.toBe('asking');
  });
});
