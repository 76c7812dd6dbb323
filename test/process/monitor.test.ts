// Processes joined to sessions by each attribution method, and the statuses they decide, on a
// fake /proc (the machine's own processes are not the test's).

import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { HookSource } from '../../src/hooks/source.js';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { liveSessions } from '../../src/store/live.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { FULL_SCAN_MS, IDLE_WATCH_MS, ProcessMonitor, SCAN_MS } from '../../src/process/monitor.js';
import { descendantsOf, procTable, type ProcessTable } from '../../src/process/table.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import { cline } from '../../src/readers/cline/reader.js';
import { rooCode } from '../../src/readers/roo-code/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { BOOT_SECONDS, fakeProc } from '../helpers/fake-proc.js';
import { tempDir } from '../helpers/run.js';

const quiet = createLogger('error');
const THREAD = '01a22a3d-05e6-72a3-9eaf-d395a9e9befd';
const OTHER = '01a22a3d-0274-7651-b942-9810f9d63ff6';
const ELSEWHERE = '01a22a3d-09aa-7ed1-96f9-c1115af80d54';
const statusOpts = { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 };
// The fake processes started 10 s after boot; sessions are written a little later.
const started = BOOT_SECONDS * 1000 + 10_000;
const at = (s: number) => new Date(started + s * 1000).toISOString();

/** `wrap`: sees what the monitor asks of the fake /proc's table. */
function setup(wrap = (table: ProcessTable) => table) {
  const db = new StateDb(tempDir());
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const proc = fakeProc();
  const monitor = new ProcessMonitor(wrap(procTable(proc.root)), store, { codex: codex.sessionOfOpenFile! }, quiet);
  const codexRoot = tempDir();
  const claudeRoot = tempDir();
  const collectors = [
    new Collector('codex', codex, [codexRoot], store, db, quiet),
    new Collector('claude-code', claudeCode, [claudeRoot], store, db, quiet),
  ];
  const scan = async (now = started + 60_000) => {
    for (const c of collectors) await c.scan();
    monitor.scan(now);
    return now;
  };
  const status = (key: string, now = started + 60_000) =>
    liveSessions(store, now, { status: statusOpts, activeWindowMs: 86_400_000 }).find(
      (l) => `${l.session.harness}/${l.session.id}` === key,
    );
  const turns = (outcome: string) =>
    [...store.counters.values()]
      .filter((c) => c.metric === 'turns' && c.labels.outcome === outcome)
      .reduce((a, c) => a + c.value, 0);
  return { store, proc, monitor, codexRoot, claudeRoot, scan, status, turns };
}

/** A Codex rollout whose turn waits on a pending shell command. */
function rollout(root: string, id: string, cwd = '/src/app'): string {
  const day = join(root, 'sessions', '2026', '11', '30');
  mkdirSync(day, { recursive: true });
  const path = join(day, `rollout-2026-11-30T10-00-00-${id}.jsonl`);
  const line = (s: number, type: string, payload: object) => `${JSON.stringify({ timestamp: at(s), type, payload })}\n`;
  writeFileSync(
    path,
    line(1, 'session_meta', { id, cwd }) +
      line(2, 'event_msg', { type: 'task_started' }) +
      line(2, 'turn_context', { cwd, model: 'gpt-5' }) +
      line(3, 'event_msg', { type: 'user_message', message: 'x' }) +
      line(4, 'response_item', {
        type: 'function_call',
        name: 'exec_command',
        call_id: 'c1',
        arguments: '{"cmd":"sleep 30","sandbox_permissions":"require_escalated"}',
      }),
  );
  return path;
}

/** A Claude Code transcript whose turn is open on a Bash call. */
function transcript(root: string, id: string, cwd = '/src/app', s = 1): void {
  const dir = join(root, 'projects', cwd.replace(/\//g, '-'));
  mkdirSync(dir, { recursive: true });
  const rec = (o: object) => `${JSON.stringify({ cwd, timestamp: at(s), ...o })}\n`;
  writeFileSync(
    join(dir, `${id}.jsonl`),
    rec({ type: 'user', uuid: `${id}-u`, message: { content: 'go' } }) +
      rec({
        type: 'assistant',
        message: {
          id: `${id}-m`,
          model: 'claude-sonnet-4-5',
          stop_reason: 'tool_use',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }],
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      }),
  );
}

const codexTui = [
  { pid: 100, p: { argv: ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'], cwd: '/src/app' } },
  { pid: 101, p: { ppid: 100, argv: ['/usr/lib/node_modules/@openai/codex/vendor/codex'], cwd: '/src/app' } },
];

describe('attribution', () => {
  it('open-file: the Codex app-server holding the rollout owns the thread; a pending command is an approval until a tool child runs', async () => {
    const t = setup();
    const path = rollout(t.codexRoot, THREAD);
    for (const { pid, p } of codexTui) t.proc.add(pid, p);
    t.proc.add(200, {
      argv: ['/home/u/.codex/packages/bin/codex', 'app-server', '--listen', 'unix://'],
      cwd: '/',
      open: [path, '/dev/null'],
    });
    // A tool process orphaned by an earlier, killed agent carries the marker but is no work.
    t.proc.add(300, { argv: ['sleep', '30'], env: { CODEX_SESSION_ID: THREAD } });
    await t.scan();
    expect(t.status(`codex/${THREAD}`)).toMatchObject({
      status: { status: 'asking', reason: 'approval' },
      process: { attribution: 'open-file', pid: 200 },
    });
    t.proc.add(201, {
      ppid: 200,
      argv: ['/bin/bash', '-c', 'sleep 30'],
      env: { CODEX_SESSION_ID: THREAD, PATH: '/bin', OPENAI_API_KEY: 'secret' },
    });
    await t.scan();
    expect(t.status(`codex/${THREAD}`)).toMatchObject({ status: { status: 'working', reason: 'turn-open' } });
    // The TUI and the daemon are two agents; the TUI owns nothing, and as a front end of the
    // thread its daemon runs it is no session of its own.
    expect(t.store.processes.unowned).toEqual([]);
    const fams = snapshot(
      t.store,
      new Map(),
      { status: statusOpts, activeWindowMs: 86_400_000, perSessionMax: 50, version: 'x' },
      started + 60_000,
    );
    const points = (name: string) => fams.find((f) => f.def.name === name)?.points ?? [];
    expect(points('coding_agent_processes')).toEqual([{ labels: { harness: 'codex' }, value: 2 }]);
    expect(points('coding_agent_process_resident_memory_bytes')).toEqual([
      { labels: { harness: 'codex' }, value: 4 * 1000 * 1024 },
    ]);
    expect(points('coding_agent_session_process_info')).toEqual([
      { labels: { harness: 'codex', project: 'app', session_id: THREAD, attribution: 'open-file' }, value: 1 },
    ]);
    expect(points('coding_agent_session_tool_started_timestamp_seconds')).toEqual([
      {
        labels: { harness: 'codex', project: 'app', session_id: THREAD, tool: 'exec_command', kind: 'execute' },
        value: (started + 4000) / 1000,
      },
    ]);
  });

  it('hook: the process a hook ran under (a shell between) owns the session; a pid reused after the event does not', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    // In another folder, with no registry: nothing but the hook joins it.
    t.proc.add(400, { argv: ['/home/u/.local/bin/claude'], cwd: '/elsewhere', startTicks: 1000 });
    t.proc.add(401, {
      ppid: 400,
      argv: ['/bin/sh', '-c', 'coding-agent-exporter hook claude-code PermissionRequest'],
      startTicks: 1500,
    });
    const state = tempDir();
    const event = {
      harness: 'claude-code',
      session: 'c1',
      event: 'PermissionRequest',
      phase: 'permission',
      waits: 'approval',
      tool: 'Bash',
      at: started + 30_000,
      pid: 401,
    };
    writeFileSync(join(state, 'hooks.jsonl'), `${JSON.stringify(event)}\n`);
    expect(new HookSource(state, t.store).read()).toBe(true);
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'asking', reason: 'approval' },
      process: { attribution: 'hook', pid: 400 },
    });
    t.proc.exit(401);
    t.proc.exit(400);
    t.proc.add(401, { argv: ['/home/u/.local/bin/claude'], cwd: '/elsewhere', startTicks: 5000 });
    await t.scan();
    // Killed: no event fires, the process table says the agent is gone and the files decide.
    expect(t.status('claude-code/c1')).toMatchObject({ status: { status: 'done' } });
    expect(t.status('claude-code/c1')!.process).toBeUndefined();
  });

  it('hook: a permission the person refused with Esc (no hook fires) ends with what the transcript and the registry say after the event', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    mkdirSync(join(t.claudeRoot, 'sessions'));
    const reg = (status: object) =>
      writeFileSync(
        join(t.claudeRoot, 'sessions', '400.json'),
        JSON.stringify({ pid: 400, sessionId: 'c1', procStart: '1000', cwd: '/src/app', ...status }),
      );
    t.proc.add(400, { argv: ['/home/u/.local/bin/claude'], cwd: '/src/app', startTicks: 1000 });
    const state = tempDir();
    const asked = started + 30_000;
    writeFileSync(
      join(state, 'hooks.jsonl'),
      `${JSON.stringify({ harness: 'claude-code', session: 'c1', event: 'PermissionRequest', phase: 'permission', waits: 'approval', tool: 'Bash', at: asked, pid: 400 })}\n`,
    );
    new HookSource(state, t.store).read();
    reg({ status: 'busy', statusUpdatedAt: asked - 5000 });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({ status: { status: 'asking', reason: 'approval' } });
    // Refused: the registry says idle since (the transcript not read yet), then the transcript records the refusal and the turn's end.
    reg({ status: 'idle', statusUpdatedAt: asked + 4000 });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'done', reason: 'process-idle' },
      process: { attribution: 'hook', statusAt: asked + 4000 },
    });
    const file = join(t.claudeRoot, 'projects', '-src-app', 'c1.jsonl');
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'user', cwd: '/src/app', timestamp: at(24), message: { content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'rejected' }] } })}\n` +
        `${JSON.stringify({ type: 'user', cwd: '/src/app', timestamp: at(24), message: { content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } })}\n`,
    );
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({ status: { status: 'done', reason: 'process-idle' } });
    expect(t.turns('interrupted')).toBe(1);
  });

  it('hook: a running tool ends the wait where only the session id marks tools (Claude Code): a child carrying it started after the event, not an MCP server nor our next hook', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    // No registry: the hook is the only witness.
    t.proc.add(400, { argv: ['/home/u/.local/bin/claude'], cwd: '/elsewhere', startTicks: 1000 });
    // The event at 40 s after boot (4000 clock ticks): the processes started later have more ticks.
    const asked = started + 30_000;
    const env = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'c1' };
    const state = tempDir();
    writeFileSync(
      join(state, 'hooks.jsonl'),
      `${JSON.stringify({ harness: 'claude-code', session: 'c1', event: 'PermissionRequest', phase: 'permission', waits: 'approval', tool: 'Bash', at: asked, pid: 400 })}\n`,
    );
    new HookSource(state, t.store).read();
    // An MCP server, started with the agent, carries the session id too.
    t.proc.add(410, { ppid: 400, argv: ['npx', 'some-mcp-server'], env, startTicks: 1100 });
    // The next event's hook, running through sh -c, before its line is read.
    t.proc.add(420, {
      ppid: 400,
      argv: ['/bin/sh', '-c', 'coding-agent-exporter hook claude-code Notification'],
      env,
      startTicks: 4200,
    });
    t.proc.add(421, {
      ppid: 420,
      argv: ['node', '/usr/lib/node_modules/coding-agent-exporter/dist/main.js', 'hook', 'claude-code', 'Notification'],
      env,
      startTicks: 4200,
    });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'asking', reason: 'approval' },
      process: { attribution: 'hook', pid: 400 },
    });
    t.proc.exit(421);
    t.proc.exit(420);
    // A child the agent runs for a moment (its status line command) does not hold the session working once it is gone.
    t.proc.add(425, { ppid: 400, argv: ['/bin/sh', '-c', 'ccusage statusline'], env, startTicks: 4300 });
    await t.scan();
    t.proc.exit(425);
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({ status: { status: 'asking', reason: 'approval' } });
    // Approved: the command runs.
    t.proc.add(430, { ppid: 400, argv: ['/bin/bash', '-c', 'source snapshot.sh && eval make'], env, startTicks: 4500 });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'working', reason: 'process-busy' },
      process: { toolRunning: true },
    });
  });

  it('hook: the same for Copilot CLI, whose events file has not recorded the approval yet', async () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const root = tempDir();
    const dir = join(root, 'session-state', 's1');
    mkdirSync(dir, { recursive: true });
    const event = (s: number, type: string, data: object) =>
      `${JSON.stringify({ type, data, id: `e${s}`, timestamp: at(s), parentId: null })}\n`;
    writeFileSync(
      join(dir, 'events.jsonl'),
      event(1, 'session.start', { sessionId: 's1', context: { cwd: '/src/app' } }) +
        event(2, 'user.message', { content: 'go' }) +
        event(3, 'assistant.turn_start', {}) +
        event(4, 'tool.execution_start', { toolCallId: 'c1', toolName: 'bash', arguments: {} }),
    );
    writeFileSync(join(dir, 'inuse.601.lock'), '601');
    const proc = fakeProc();
    proc.add(600, {
      argv: ['node', '/usr/lib/node_modules/@github/copilot/index.js'],
      cwd: '/src/app',
      startTicks: 1000,
    });
    proc.add(601, {
      ppid: 600,
      argv: ['/usr/lib/node_modules/@github/copilot-linux-x64/copilot'],
      cwd: '/src/app',
      startTicks: 1000,
    });
    const state = tempDir();
    writeFileSync(
      join(state, 'hooks.jsonl'),
      `${JSON.stringify({ harness: 'copilot-cli', session: 's1', event: 'permissionRequest', phase: 'permission', waits: 'approval', tool: 'bash', at: started + 30_000, pid: 601 })}\n`,
    );
    new HookSource(state, store).read();
    await new Collector('copilot-cli', copilotCli, [root], store, db, quiet).scan();
    const monitor = new ProcessMonitor(procTable(proc.root), store, {}, quiet);
    const status = () =>
      liveSessions(store, started + 60_000, { status: statusOpts, activeWindowMs: 86_400_000 })[0]?.status;
    monitor.scan(started + 60_000);
    expect(status()).toEqual({ status: 'asking', reason: 'approval' });
    proc.add(650, {
      ppid: 601,
      argv: ['/bin/bash', '-c', 'make'],
      env: { COPILOT_AGENT_SESSION_ID: 's1' },
      startTicks: 4500,
    });
    monitor.scan(started + 61_000);
    expect(status()).toEqual({ status: 'working', reason: 'process-busy' });
  });

  it('reads a copy of /proc taken as a snapshot (links as files holding their target)', async () => {
    const t = setup();
    const proc = fakeProc({ snapshot: true });
    const monitor = new ProcessMonitor(procTable(proc.root), t.store, { codex: codex.sessionOfOpenFile! }, quiet);
    const path = rollout(t.codexRoot, THREAD);
    proc.add(200, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    await t.scan();
    monitor.scan(started + 60_000);
    expect(t.store.processes.owners.get(`codex/${THREAD}`)).toMatchObject({ attribution: 'open-file', pid: 200 });
  });

  it('registry: a live pid whose start matches procStart; a reused pid does not count', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    mkdirSync(join(t.claudeRoot, 'sessions'));
    const reg = (pid: number, procStart: string, status: object) =>
      writeFileSync(
        join(t.claudeRoot, 'sessions', `${pid}.json`),
        JSON.stringify({ pid, sessionId: 'c1', procStart, cwd: '/src/app', ...status }),
      );
    reg(400, '1000', { status: 'waiting', waitingFor: 'permission prompt' });
    t.proc.add(400, { argv: ['/home/u/.local/bin/claude', '--model', 'x'], cwd: '/elsewhere', startTicks: 1000 });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'asking', reason: 'approval' },
      process: { attribution: 'registry', pid: 400 },
    });
    reg(400, '999', { status: 'busy' });
    await t.scan();
    // Not attributed by the stale registry; the process's cwd is elsewhere, so nothing owns c1.
    expect(t.status('claude-code/c1')!.process).toBeUndefined();
  });

  it("registry without a start time (Copilot CLI's lock): only a process of the harness counts, not a reused pid", async () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const root = tempDir();
    const dir = join(root, 'session-state', 's1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'events.jsonl'),
      `${JSON.stringify({ type: 'session.start', data: { sessionId: 's1', context: { cwd: '/src/app' } }, timestamp: at(1) })}\n`,
    );
    writeFileSync(join(dir, 'inuse.600.lock'), '600');
    writeFileSync(join(dir, 'inuse.700.lock'), '700');
    const proc = fakeProc();
    proc.add(600, { argv: ['vim', 'notes.txt'], cwd: '/elsewhere' });
    await new Collector('copilot-cli', copilotCli, [root], store, db, quiet).scan();
    const monitor = new ProcessMonitor(procTable(proc.root), store, {}, quiet);
    monitor.scan(started + 60_000);
    expect(store.processes.owners.get('copilot-cli/s1')).toBeUndefined();
    // Nothing new in the table: nothing to render again.
    expect(monitor.scan(started + 60_500)).toBe(false);
    proc.add(700, { ppid: 1, argv: ['/usr/lib/node_modules/@github/copilot-linux-x64/copilot'], cwd: '/elsewhere' });
    expect(monitor.scan(started + 61_000)).toBe(true);
    expect(store.processes.owners.get('copilot-cli/s1')).toMatchObject({ attribution: 'registry', pid: 700 });
    // Its CPU and memory alone change: served with the next tick, not rendered again now.
    proc.cpu(700, { ppid: 1, argv: ['/usr/lib/node_modules/@github/copilot-linux-x64/copilot'], cpuTicks: 5 });
    expect(monitor.scan(started + 62_000)).toBe(false);
    expect(store.processes.owners.get('copilot-cli/s1')!.cpuRatio).toBeGreaterThan(0);
  });

  it('an agent no session names going busy or idle is served at once; its CPU alone is not', () => {
    const db = new StateDb(tempDir());
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const proc = fakeProc();
    const agent = { argv: ['/usr/local/bin/cursor-agent'], cwd: '/src/app' };
    proc.add(900, agent);
    const monitor = new ProcessMonitor(procTable(proc.root), store, {}, quiet);
    monitor.scan(started);
    proc.cpu(900, { ...agent, cpuTicks: 50 }); // 0.5 s of CPU in 1 s: busy
    expect(monitor.scan(started + 1000)).toBe(true);
    proc.cpu(900, { ...agent, cpuTicks: 90 }); // 0.4 s in 1 s: still busy
    expect(monitor.scan(started + 2000)).toBe(false);
    expect(store.processes.unowned[0]).toMatchObject({ busy: true, cpuRatio: 0.4 });
    expect(monitor.scan(started + 3000)).toBe(true); // no CPU in 1 s: idle
  });

  it('environment: a tool process names its Claude Code session', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    t.proc.add(400, { argv: ['claude'], cwd: '/elsewhere' });
    t.proc.add(401, {
      ppid: 400,
      argv: ['/bin/bash', '-c', 'sleep 30'],
      env: { CLAUDE_CODE_SESSION_ID: 'c1', ANTHROPIC_API_KEY: 'secret' },
    });
    await t.scan();
    expect(t.status('claude-code/c1')).toMatchObject({
      status: { status: 'working', reason: 'turn-open' },
      process: { attribution: 'environment', pid: 400 },
    });
  });

  it('command-line: a known session id after --resume, never prompt text', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    transcript(t.claudeRoot, 'c2');
    t.proc.add(400, { argv: ['claude', '--resume', 'c1'], cwd: '/elsewhere' });
    t.proc.add(401, { argv: ['claude', '-p', 'c2'], cwd: '/elsewhere' });
    await t.scan();
    expect(t.status('claude-code/c1')!.process).toMatchObject({ attribution: 'command-line', pid: 400 });
    expect(t.status('claude-code/c2')!.process).toBeUndefined();
  });

  it('command-line: read whole however long (past the buffer small /proc files are read into)', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1');
    t.proc.add(400, {
      argv: ['claude', '--append-system-prompt', 'é'.repeat(6000), '--resume', 'c1'],
      cwd: '/elsewhere',
    });
    await t.scan();
    expect(t.status('claude-code/c1')!.process).toMatchObject({ attribution: 'command-line', pid: 400 });
  });

  it('cwd: the newest session in the folder, never one an exact method claimed', async () => {
    const t = setup();
    transcript(t.claudeRoot, 'older', '/src/app', 1);
    transcript(t.claudeRoot, 'newer', '/src/app', 2);
    t.proc.add(400, { argv: ['claude', '--resume', 'newer'], cwd: '/src/app' });
    t.proc.add(401, { argv: ['claude'], cwd: '/src/app' });
    await t.scan();
    expect(t.status('claude-code/newer')!.process).toMatchObject({ attribution: 'command-line', pid: 400 });
    expect(t.status('claude-code/older')!.process).toMatchObject({ attribution: 'cwd', pid: 401 });
  });

  it("a session started before the process, quiet since, is not the cwd heuristic's", async () => {
    const t = setup();
    transcript(t.claudeRoot, 'c1', '/src/app', -60);
    t.proc.add(401, { argv: ['claude'], cwd: '/src/app' });
    await t.scan();
    expect(t.status('claude-code/c1')!.process).toBeUndefined();
  });
});

describe('an unchanged process table', () => {
  it('costs no second environment read of a tool process; a pid reused by another process is read again', async () => {
    const environReads: number[] = [];
    const t = setup((table) => ({
      ...table,
      environ: (pid, names) => (environReads.push(pid), table.environ(pid, names)),
    }));
    const path = rollout(t.codexRoot, THREAD);
    t.proc.add(200, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    t.proc.add(201, { ppid: 200, argv: ['/bin/bash', '-c', 'sleep 30'], env: { CODEX_SESSION_ID: THREAD } });
    t.proc.add(202, { ppid: 200, argv: ['/usr/bin/mcp-server'] });
    await t.scan();
    await t.scan(started + 61_000);
    expect(t.status(`codex/${THREAD}`, started + 61_000)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    expect(environReads.sort()).toEqual([201, 202]);
    // The command ended and its pid went to a process with no marker, read again (the call it ran
    // stays past its approval: the rollout has not recorded its end yet).
    rmSync(join(t.proc.root, '201'), { recursive: true });
    t.proc.add(201, { ppid: 200, argv: ['/bin/cat'], startTicks: 2000 });
    await t.scan(started + 62_000);
    expect(t.status(`codex/${THREAD}`, started + 62_000)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    expect(environReads.sort()).toEqual([201, 201, 202]);
  });
});

describe('a process that dies mid-turn', () => {
  it('ends the turn at once, counted once as interrupted', async () => {
    const t = setup();
    const path = rollout(t.codexRoot, THREAD);
    rollout(t.codexRoot, OTHER, tempDir());
    rollout(t.codexRoot, ELSEWHERE, '/nonexistent/on/this/machine');
    t.proc.add(200, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    t.proc.add(201, { ppid: 200, argv: ['sleep', '30'], env: { CODEX_SESSION_ID: THREAD } });
    await t.scan();
    expect(t.status(`codex/${THREAD}`)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    // Never owned while the exporter watched: its open turn is not counted, it just is not working.
    expect(t.status(`codex/${OTHER}`)!.status).toEqual({ status: 'done', reason: 'recent' });
    // A session whose folder is not on this machine has processes this one cannot see: the timer decides.
    expect(t.status(`codex/${ELSEWHERE}`)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    rmSync(join(t.proc.root, '200'), { recursive: true });
    rmSync(join(t.proc.root, '201'), { recursive: true });
    await t.scan(started + 61_000);
    expect(t.turns('interrupted')).toBe(1);
    expect(t.status(`codex/${THREAD}`, started + 61_000)!.status).toEqual({ status: 'done', reason: 'recent' });
    await t.scan(started + 62_000);
    expect(t.turns('interrupted')).toBe(1);
  });

  it('does not flap into asking while the agent is torn down: its tool child goes first, the call it ran stays pending', async () => {
    const t = setup();
    const path = rollout(t.codexRoot, THREAD);
    t.proc.add(200, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    t.proc.add(201, { ppid: 200, argv: ['sleep', '30'], env: { CODEX_SESSION_ID: THREAD } });
    await t.scan();
    expect(t.status(`codex/${THREAD}`)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    // Killed (Qwen Code's launcher, a hang-up): the tool dies at once, the agent a moment later.
    t.proc.exit(201);
    await t.scan(started + 61_000);
    expect(t.status(`codex/${THREAD}`, started + 61_000)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    t.proc.exit(200);
    await t.scan(started + 62_000);
    expect(t.turns('interrupted')).toBe(1);
    expect(t.status(`codex/${THREAD}`, started + 62_000)!.status).toEqual({ status: 'done', reason: 'recent' });
  });

  it('does not flap into asking with hooks either: a permission its tool was seen running after is past', async () => {
    const t = setup();
    const path = rollout(t.codexRoot, THREAD);
    t.proc.add(200, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    const state = tempDir();
    const event = {
      harness: 'codex',
      session: THREAD,
      event: 'PermissionRequest',
      phase: 'permission',
      waits: 'approval',
      tool: 'Bash',
      at: started + 30_000,
    };
    writeFileSync(join(state, 'hooks.jsonl'), `${JSON.stringify(event)}\n`);
    new HookSource(state, t.store).read();
    await t.scan();
    expect(t.status(`codex/${THREAD}`)!.status).toEqual({ status: 'asking', reason: 'approval' });
    t.proc.add(201, { ppid: 200, argv: ['sleep', '30'], env: { CODEX_SESSION_ID: THREAD } });
    await t.scan(started + 61_000);
    expect(t.status(`codex/${THREAD}`, started + 61_000)!.status).toEqual({
      status: 'working',
      reason: 'process-busy',
    });
    t.proc.exit(201);
    await t.scan(started + 62_000);
    expect(t.status(`codex/${THREAD}`, started + 62_000)!.status).toEqual({
      status: 'working',
      reason: 'process-busy',
    });
  });

  it('counts nothing while the process lives on, joined to a newer session', async () => {
    const t = setup();
    const cwd = tempDir();
    transcript(t.claudeRoot, 'first', cwd, 1);
    t.proc.add(400, { argv: ['claude'], cwd });
    await t.scan();
    expect(t.status('claude-code/first')!.process).toMatchObject({ attribution: 'cwd', pid: 400 });
    transcript(t.claudeRoot, 'second', cwd, 2);
    await t.scan(started + 61_000);
    expect(t.status('claude-code/second', started + 61_000)!.process).toMatchObject({ attribution: 'cwd', pid: 400 });
    expect(t.turns('interrupted')).toBe(0);
    rmSync(join(t.proc.root, '400'), { recursive: true });
    await t.scan(started + 62_000);
    // Both turns the process left open are cut off.
    expect(t.turns('interrupted')).toBe(2);
  });
});

describe('an agent no session file is joined to', () => {
  it("is recognised once the shim or wrapper it was started through has exec'd it, though scanned before", async () => {
    const t = setup();
    // pyenv's shim runs `pyenv exec aider` (a bash script), which execs Python on aider's script.
    t.proc.add(500, {
      argv: ['bash', '/home/u/.pyenv/libexec/pyenv', 'exec', 'aider'],
      comm: 'pyenv',
      exe: '/usr/bin/bash',
      cwd: '/src/app',
    });
    // A shell script named like the harness that execs it: the command name stays, the executable changes.
    t.proc.add(501, { argv: ['/bin/sh', '/home/u/bin/claude'], comm: 'claude', exe: '/usr/bin/dash', cwd: '/src/web' });
    await t.scan();
    expect(t.store.processes.unowned).toEqual([]);
    t.proc.add(500, {
      argv: ['/home/u/.pyenv/versions/3.12.7/bin/python3.12', '/home/u/.pyenv/versions/3.12.7/bin/aider'],
      comm: 'aider',
      cwd: '/src/app',
    });
    t.proc.add(501, {
      argv: ['/home/u/.local/bin/claude'],
      exe: '/home/u/.local/share/claude/versions/2.1.332/claude',
      cwd: '/src/web',
    });
    await t.scan(started + 61_000);
    expect(t.store.processes.unowned.map((a) => [a.harness, a.project, a.pid]).sort()).toEqual([
      ['aider', 'app', 500],
      ['claude-code', 'web', 501],
    ]);
  });

  it('counts as working (cpu-busy) while its process tree uses CPU, else idle', async () => {
    const t = setup();
    // Started 10 s after boot, 1 min ago; 50 s of CPU so far.
    t.proc.add(500, {
      argv: ['/usr/bin/python3', '/home/u/.local/bin/aider', '--model', 'x'],
      cwd: '/src/app',
      cpuTicks: 5000,
    });
    t.proc.add(501, { argv: ['/home/u/.local/bin/cursor-agent'], cwd: '/src/web' });
    const now = await t.scan();
    expect(t.store.processes.unowned).toEqual([
      {
        harness: 'aider',
        project: 'app',
        busy: true,
        cpuRatio: expect.closeTo(50 / 60, 2),
        residentBytes: 1024_000,
        pid: 500,
      },
      { harness: 'cursor-agent', project: 'web', busy: false, cpuRatio: 0, residentBytes: 1024_000, pid: 501 },
    ]);
    // Over the next interval the busy loop uses 1 s of CPU per second.
    t.proc.cpu(500, { argv: ['aider'], cpuTicks: 5100 });
    await t.scan(now + 1000);
    expect(t.store.processes.totals.get('aider')?.cpuRatio).toBeCloseTo(1, 5);
    const fams = snapshot(
      t.store,
      new Map(),
      { status: statusOpts, activeWindowMs: 86_400_000, perSessionMax: 50, version: 'x' },
      now + 1000,
    );
    const sessions = fams.find((f) => f.def.name === 'coding_agent_sessions')!.points.filter((p) => p.value > 0);
    expect(sessions).toEqual([
      { labels: { harness: 'aider', project: 'app', status: 'working' }, value: 1 },
      { labels: { harness: 'cursor-agent', project: 'web', status: 'idle' }, value: 1 },
    ]);
  });
});

describe('a task of an editor extension (no process of its own)', () => {
  /** A task folder whose transcript ends on `last` (ms times after the processes started). */
  function task(root: string, id: string, last: object): void {
    mkdirSync(join(root, id), { recursive: true });
    const ts = (s: number) => started + s * 1000;
    writeFileSync(
      join(root, id, 'ui_messages.json'),
      JSON.stringify([
        { ts: ts(1), type: 'say', say: 'task', text: 'x' },
        {
          ts: ts(2),
          type: 'say',
          say: 'api_req_started',
          text: JSON.stringify({ tokensIn: 10, tokensOut: 5, cacheReads: 0, cacheWrites: 0, cost: 0.001 }),
        },
        { ts: ts(3), ...last },
      ]),
    );
  }

  it("keeps the status its files give (asking, working), though the process view sees its harness's CLI", async () => {
    const t = setup();
    const cwd = tempDir();
    const clineTasks = join(tempDir(), 'saoudrizwan.claude-dev', 'tasks');
    const rooTasks = join(tempDir(), 'rooveterinaryinc.roo-cline', 'tasks');
    task(clineTasks, '1796000011000', {
      type: 'ask',
      ask: 'tool',
      text: JSON.stringify({ tool: 'editedExistingFile', path: 'a.ts' }),
    });
    task(clineTasks, '1796000012000', { type: 'say', say: 'api_req_started', text: JSON.stringify({}) });
    task(rooTasks, '5b70f775-a2cc-457f-9876-ac743c8eef90', {
      type: 'ask',
      ask: 'followup',
      text: JSON.stringify({ question: 'q' }),
    });
    const collectors = [
      new Collector('cline', cline, [clineTasks], t.store, new StateDb(':memory:'), quiet),
      new Collector('roo-code', rooCode, [rooTasks], t.store, new StateDb(':memory:'), quiet),
    ];
    for (const c of collectors) await c.scan();
    for (const s of t.store.sessions.values()) s.cwd = cwd;
    // Cline's CLI runs in the same folder: it is not the extension's tasks' process.
    t.proc.add(600, { argv: ['cline'], cwd });
    await t.scan();
    expect(t.status('cline/1796000011000')).toMatchObject({ status: { status: 'asking', reason: 'approval' } });
    expect(t.status('cline/1796000011000')!.process).toBeUndefined();
    expect(t.status('cline/1796000012000')).toMatchObject({ status: { status: 'working', reason: 'turn-open' } });
    expect(t.status('roo-code/5b70f775-a2cc-457f-9876-ac743c8eef90')).toMatchObject({
      status: { status: 'asking', reason: 'question' },
    });
    // The CLI ends: nothing of the tasks is cut off.
    rmSync(join(t.proc.root, '600'), { recursive: true });
    await t.scan(started + 61_000);
    expect(t.turns('interrupted')).toBe(0);
    expect(t.status('cline/1796000011000', started + 61_000)!.status).toEqual({ status: 'asking', reason: 'approval' });
    // Harnesses with no process of their own at all are never taken as seen.
    expect([...t.store.processes.visible].filter((h) => ['cline', 'roo-code', 'amp'].includes(h))).toEqual(['cline']);
  });
});

describe('when the table is read', () => {
  it('every second while an agent runs; otherwise only when a new process is an agent, a session file changed, or rarely', async () => {
    const { proc, monitor, scan } = setup();
    proc.add(50, { argv: ['/bin/bash'] });
    let now = await scan(started + 60_000);
    // Asked every second; with no agent, the pids are listed every IDLE_WATCH_MS.
    const due = (after = IDLE_WATCH_MS) => monitor.due((now += after));
    expect(due()).toBe(false);
    expect(due()).toBe(false);
    // A new process that is no agent is looked at alone; the table is not read for it.
    proc.add(60, { argv: ['/bin/bash'] });
    expect(due()).toBe(false);
    // It execs an agent a moment later (a shell starting one): looked at once more, and the table is read.
    proc.add(60, codexTui[0]!.p);
    expect(due()).toBe(true);
    await scan(now);
    expect(due(1000)).toBe(true);
    expect(due(1000)).toBe(true);
    // The agent ends: back to watching.
    proc.exit(60);
    await scan(now);
    expect(due(1000)).toBe(false);
    // An agent started as such: seen at the next listing of the pids, not between two.
    proc.add(70, codexTui[0]!.p);
    expect(due(1000)).toBe(false);
    expect(due()).toBe(true);
    proc.exit(70);
    await scan(now);
    expect(due()).toBe(false);
    // A session file that changed may be a new agent's.
    monitor.wake();
    expect(due()).toBe(true);
    await scan(now);
    expect(due()).toBe(false);
    // And the whole table now and then, for what the watch cannot see.
    expect(monitor.due(now + FULL_SCAN_MS.watched)).toBe(true);
  });

  it('is asked again only when due: each second while an agent runs or after a wake, else at the next listing of pids or full read', async () => {
    const { proc, monitor, scan } = setup();
    proc.add(50, { argv: ['/bin/bash'] });
    const now = await scan(started + 60_000);
    // The pids were listed with the table: the next listing is due IDLE_WATCH_MS later.
    expect(monitor.nextDue()).toBe(now + IDLE_WATCH_MS);
    expect(monitor.due(now + IDLE_WATCH_MS)).toBe(false);
    expect(monitor.nextDue()).toBe(now + 2 * IDLE_WATCH_MS);
    monitor.wake(now + 6000);
    monitor.wake(now + 6500); // a second change does not put the scan off
    expect(monitor.nextDue()).toBe(now + 6000 + SCAN_MS);
    proc.add(60, codexTui[0]!.p);
    await scan(now + 7000);
    expect(monitor.nextDue()).toBe(now + 7000 + SCAN_MS);
    proc.exit(60);
    await scan(now + 8000);
    expect(monitor.nextDue()).toBe(now + 8000 + IDLE_WATCH_MS);
  });

  it("of only the processes one started (the demo's), sees no other agent between full reads", async () => {
    const { proc, scan, store } = setup((table) => descendantsOf(table, 10));
    proc.add(10, { argv: ['node', 'demo'] });
    proc.add(11, { ppid: 10, ...codexTui[0]!.p });
    const now = await scan(started + 60_000);
    proc.add(20, { argv: ['gemini'], cwd: '/src/web' });
    await scan(now + SCAN_MS);
    expect(store.processes.unowned.map((a) => a.pid)).toEqual([11]);
  });

  it('a scan that fails is tried again when a scan would next be due, not at once', async () => {
    let failing = false;
    const { proc, monitor, scan } = setup((table) => ({
      ...table,
      list: () =>
        failing
          ? ((): never => {
              throw new Error('EACCES');
            })()
          : table.list(),
    }));
    proc.add(50, { argv: ['/bin/bash'] });
    const now = await scan(started + 60_000);
    failing = true;
    const failedAt = now + FULL_SCAN_MS.watched;
    expect(monitor.due(failedAt)).toBe(true);
    expect(monitor.scan(failedAt)).toBe(false);
    expect(monitor.due(failedAt)).toBe(false);
    monitor.wake(failedAt);
    expect(monitor.scan(failedAt + SCAN_MS)).toBe(false);
    expect(monitor.due(failedAt + SCAN_MS)).toBe(false);
  });

  it('while agents run, only their processes and new ones each second; the whole table at a wake or every FULL_SCAN_MS', async () => {
    const lists: number[] = [];
    const read: number[][] = [];
    const t = setup((table) => ({
      ...table,
      list: () => (lists.push(1), table.list()),
      procs: (pids) => (read.push([...pids].sort()), table.procs!(pids)),
    }));
    const path = rollout(t.codexRoot, THREAD);
    t.proc.add(50, { argv: ['/bin/bash'] });
    t.proc.add(300, { argv: ['codex', 'app-server'], cwd: '/', open: [path] });
    t.proc.add(301, { ppid: 300, argv: ['/usr/bin/mcp-server'] });
    let now = await t.scan(started + 60_000);
    expect(lists).toHaveLength(1);
    const next = async (ms = SCAN_MS) => {
      read.length = 0;
      await t.scan((now += ms));
      return read.flat();
    };
    // The agent's tree, and what is new since the last listing (nothing).
    expect(await next()).toEqual([300, 301]);
    expect(lists).toHaveLength(1);
    expect(t.status(`codex/${THREAD}`, now)!.status).toEqual({ status: 'asking', reason: 'approval' });
    // A tool child started: seen at the next scan, which reads it (new) and the tree.
    t.proc.add(302, { ppid: 300, argv: ['/bin/bash', '-c', 'sleep 30'], env: { CODEX_SESSION_ID: THREAD } });
    expect(await next()).toEqual([300, 301, 302]);
    expect(t.status(`codex/${THREAD}`, now)!.status).toEqual({ status: 'working', reason: 'turn-open' });
    // A process that was no agent and execs one (no new pid) waits for a full read of the table...
    t.proc.add(50, { argv: ['gemini'], cwd: '/src/web' });
    expect(await next()).toEqual([300, 301, 302]);
    expect(t.store.processes.unowned.map((a) => a.pid)).toEqual([]);
    // ...which a session file written asks for (the exporter wakes the monitor),
    t.monitor.wake(now);
    await next();
    expect(lists).toHaveLength(2);
    expect(t.store.processes.unowned.map((a) => a.pid)).toEqual([50]);
    // as FULL_SCAN_MS gone by does.
    await next();
    expect(lists).toHaveLength(2);
    await next(FULL_SCAN_MS.watched);
    expect(lists).toHaveLength(3);
    // The agent killed: seen at the next scan, which reads no more than the pids still listed.
    t.proc.exit(302);
    rmSync(join(t.proc.root, '302'), { recursive: true });
    rmSync(join(t.proc.root, '301'), { recursive: true });
    rmSync(join(t.proc.root, '300'), { recursive: true });
    await next();
    expect(lists).toHaveLength(3);
    expect(t.turns('interrupted')).toBe(1);
    expect(t.status(`codex/${THREAD}`, now)!.status).toEqual({ status: 'done', reason: 'recent' });
  });
});
