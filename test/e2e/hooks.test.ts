// `coding-agent-exporter hook` as a harness runs it, and what the exporter makes of its spool.
// The hook never fails the agent: whatever goes wrong, exit 0, `{}` on stdout, one line on stderr.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, FIXTURES, MAIN, run, tempDir } from '../helpers/run.js';

const DROP = ['--inh-caps=-dac_override', '--bounding-set=-dac_override'];
const canDrop = spawnSync('setpriv', [...DROP, 'true']).status === 0;

function hook(
  args: string[],
  input: string,
  env = envFor(tempDir()),
  prefix: string[] = [],
): { status: number; stdout: string; stderr: string } {
  const [cmd, ...pre] = prefix.length > 0 ? [...prefix, process.execPath] : [process.execPath];
  const r = spawnSync(cmd, [...pre, MAIN, 'hook', ...args], { env, input, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const spool = (dir: string) =>
  readFileSync(join(dir, 'hooks.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const preToolUse = JSON.stringify({
  hook_event_name: 'PreToolUse',
  session_id: 'S1',
  cwd: '/w',
  tool_name: 'Bash',
  tool_input: { command: 'cat ~/.netrc' },
});

describe('the hook command', () => {
  it('appends what a status needs to the spool in the state folder and prints {}', () => {
    const state = tempDir();
    const r = hook(['claude-code', 'PreToolUse', '--state-dir', state], preToolUse);
    expect(r).toMatchObject({ status: 0, stdout: '{}\n', stderr: '' });
    expect(spool(state)).toEqual([
      expect.objectContaining({
        harness: 'claude-code',
        session: 'S1',
        event: 'PreToolUse',
        phase: 'tool',
        tool: 'Bash',
        cwd: '/w',
      }),
    ]);
    expect(readFileSync(join(state, 'hooks.jsonl'), 'utf8')).not.toContain('netrc');
  });

  it('writes where the exporter reads: the state folder from the environment or the --config file', () => {
    const byEnv = tempDir();
    expect(hook(['codex'], preToolUse, envFor(tempDir(), { CODING_AGENT_EXPORTER_STATE_DIR: byEnv })).status).toBe(0);
    const byFile = tempDir();
    const config = join(tempDir(), 'c.json');
    writeFileSync(config, JSON.stringify({ stateDir: byFile }));
    expect(
      hook(['gemini-cli', '--config', config], JSON.stringify({ hook_event_name: 'AfterAgent', session_id: 'S2' }))
        .status,
    ).toBe(0);
    expect(spool(byEnv)[0]).toMatchObject({ harness: 'codex', phase: 'tool' });
    expect(spool(byFile)[0]).toMatchObject({ harness: 'gemini-cli', phase: 'stop' });
  });

  it("takes Codex's notify payload from its last argument and prints nothing", () => {
    const state = tempDir();
    const r = spawnSync(
      process.execPath,
      [
        MAIN,
        'hook',
        'codex',
        'notify',
        '--state-dir',
        state,
        JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'T1' }),
      ],
      { env: envFor(tempDir()), encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(spool(state)).toEqual([
      expect.objectContaining({ harness: 'codex', session: 'T1', event: 'notify', phase: 'stop' }),
    ]);
  });

  it("skips Codex's notify for its hidden title thread (as recorded), and keeps a session's", () => {
    const recorded = readFileSync(join(FIXTURES, 'hooks/codex.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; payload: Record<string, string> });
    const notify = (payload: object) => {
      const state = tempDir();
      const r = spawnSync(
        process.execPath,
        [MAIN, 'hook', 'codex', 'notify', '--state-dir', state, JSON.stringify(payload)],
        { env: envFor(tempDir()), encoding: 'utf8', timeout: 30_000 },
      );
      expect(r).toMatchObject({ status: 0, stderr: '' });
      return existsSync(join(state, 'hooks.jsonl')) ? spool(state) : [];
    };
    const titles = recorded.filter((e) => e.event === 'notify');
    expect(titles).toHaveLength(2);
    for (const e of titles) expect(notify(e.payload)).toEqual([]);
    // The notify of a session's turn: its thread id, the turn its prompt started.
    const prompt = recorded.find((e) => e.event === 'UserPromptSubmit')!.payload;
    expect(notify({ ...titles[0]!.payload, 'thread-id': prompt.session_id, 'turn-id': prompt.turn_id })).toEqual([
      expect.objectContaining({ session: prompt.session_id, event: 'notify', phase: 'stop' }),
    ]);
  });

  it.each([
    ['input that is not JSON', ['claude-code'], 'not json {', /the event is not a JSON object/],
    ['an unknown harness', ['claude'], preToolUse, /unknown harness "claude"/],
  ])('%s: exit 0, nothing written, one line on stderr', (_, args, input, message) => {
    const state = tempDir();
    const r = hook([...args, '--state-dir', state], input);
    expect(r).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(r.stderr).not.toContain('not json');
    expect(existsSync(join(state, 'hooks.jsonl'))).toBe(false);
  });

  it('a state folder that does not exist: exit 0, nothing created, one line on stderr', () => {
    const state = join(tempDir(), 'missing');
    const r = hook(['claude-code', '--state-dir', state], preToolUse);
    expect(r).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/ENOENT/)]);
    expect(existsSync(state)).toBe(false);
  });

  // Tests run as root, which writes through mode bits: the hook runs without that capability.
  it.skipIf(!canDrop && process.getuid?.() === 0)('a read-only state folder: exit 0, one line on stderr', () => {
    const state = join(tempDir(), 'state');
    mkdirSync(state, { mode: 0o555 });
    const r = hook(
      ['claude-code', '--state-dir', state],
      preToolUse,
      envFor(tempDir()),
      process.getuid?.() === 0 ? ['setpriv', ...DROP] : [],
    );
    expect(r).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/EACCES/)]);
    expect(existsSync(join(state, 'hooks.jsonl'))).toBe(false);
  });

  it('the spool is readable by its owner alone, one an earlier version made too', () => {
    const state = tempDir();
    const spool = join(state, 'hooks.jsonl');
    expect(hook(['claude-code', '--state-dir', state], preToolUse).status).toBe(0);
    expect(statSync(spool).mode & 0o777).toBe(0o600);
    chmodSync(spool, 0o644);
    expect(hook(['claude-code', '--state-dir', state], preToolUse).status).toBe(0);
    expect(statSync(spool).mode & 0o777).toBe(0o600);
  });

  // A FIFO would hold the hook (and its agent) until the harness's own timeout; a link would write where it points.
  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
    ['a symbolic link', (path: string) => symlinkSync(join(tempDir(), 'elsewhere'), path)],
  ])(
    '%s at the spool: exit 0 at once, nothing written, one line on stderr',
    (_, make) => {
      const state = tempDir();
      const spool = join(state, 'hooks.jsonl');
      make(spool);
      const r = hook(['claude-code', '--state-dir', state], preToolUse);
      expect(r).toMatchObject({ status: 0, stdout: '{}\n' });
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/not a regular file|ELOOP/)]);
      expect(existsSync(spool) && statSync(spool).isFile()).toBe(false);
    },
    60_000,
  );

  it('the command word after a flag runs the same hook', () => {
    const state = tempDir();
    expect(
      spawnSync(process.execPath, [MAIN, '--state-dir', state, 'hook', 'qwen-code'], {
        env: envFor(tempDir()),
        input: preToolUse,
        encoding: 'utf8',
      }).status,
    ).toBe(0);
    expect(spool(state)[0]).toMatchObject({ harness: 'qwen-code', phase: 'tool' });
  });
});

describe('hooks print', () => {
  /** A clone's build in a folder with a space: its dist/main.js (the packages are the checkout's). */
  const clone = (): string => {
    const dir = join(tempDir(), 'my clone');
    cpSync(join(MAIN, '..'), join(dir, 'dist'), { recursive: true });
    cpSync(join(MAIN, '../../package.json'), join(dir, 'package.json'));
    symlinkSync(join(MAIN, '../../node_modules'), join(dir, 'node_modules'));
    return realpathSync(join(dir, 'dist/main.js'));
  };
  /** `hooks print ARGS` run by `main` in `cwd`, with `bin` (a folder) first on PATH. */
  const print = (main: string, args: string[], bin = tempDir(), cwd = tempDir()) =>
    spawnSync(process.execPath, [main, 'hooks', 'print', ...args], {
      cwd,
      env: envFor(tempDir(), { PATH: `${bin}:${process.env.PATH}` }),
      encoding: 'utf8',
      timeout: 30_000,
    });
  /** What npm install -g (or npm link) leaves: the bin on PATH, a link to the executable main.js. */
  const installed = (args: string[]) => {
    const main = clone();
    chmodSync(main, 0o755);
    const bin = tempDir();
    symlinkSync(main, join(bin, 'coding-agent-exporter'));
    return print(main, args, bin);
  };
  type Settings = { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
  /** The JSON of hooks.json (or settings.json) in what `hooks print` printed. */
  const settingsOf = (stdout: string): Settings =>
    JSON.parse(stdout.slice(stdout.indexOf('{'), stdout.indexOf('\n}\n') + 2)) as Settings;

  it("prints each harness's settings, naming the state folder where it is not the default", () => {
    const state = tempDir();
    const r = installed(['claude-code', '--state-dir', state]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toContain('~/.claude/settings.json');
    const settings = settingsOf(r.stdout);
    expect(Object.keys(settings.hooks)).toEqual([
      'UserPromptSubmit',
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'Notification',
      'Stop',
      'SessionEnd',
    ]);
    expect(settings.hooks.Stop![0]!.hooks[0]!.command).toBe(
      `coding-agent-exporter hook claude-code Stop --state-dir ${state}`,
    );
    expect(r.stdout).toContain('{"statusLine":{"type":"command","command":"coding-agent-exporter statusline"}}');
    expect(run(['hooks', 'print', 'aider'], envFor(tempDir()))).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/HARNESS one of claude-code/),
    });
  });

  it('Codex: notify as a top-level key of config.toml, SessionEnd within the 3 s Codex allows it', () => {
    const r = installed(['codex']);
    expect(r.stdout).toMatch(
      /top-level key, so put it above the first \[table\]:\nnotify = \["coding-agent-exporter", "hook", "codex", "notify"\]\n[\s\S]*trust/,
    );
    const timeouts = Object.entries(settingsOf(r.stdout).hooks).map(([event, [group]]) => [
      event,
      group!.hooks[0]!.timeout,
    ]);
    expect(Object.fromEntries(timeouts)).toEqual({
      UserPromptSubmit: 10,
      PreToolUse: 10,
      PermissionRequest: 10,
      PostToolUse: 10,
      Stop: 10,
      SessionEnd: 3,
    });
  });

  it('from a clone (in a folder with a space), with a relative state folder: commands that run from any project folder', () => {
    // No coding-agent-exporter on PATH but another program of that name.
    const other = tempDir();
    writeFileSync(join(other, 'coding-agent-exporter'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const cwd = realpathSync(tempDir());
    const main = clone();
    const r = print(main, ['codex', '--state-dir', 'state'], other, cwd);
    expect(r.status).toBe(0);
    const state = join(cwd, 'state');
    mkdirSync(state);
    const command = settingsOf(r.stdout).hooks.PreToolUse![0]!.hooks[0]!.command;
    expect(command).toBe(`${process.execPath} '${main}' hook codex PreToolUse --state-dir ${state}`);
    expect(r.stdout).toContain(
      `notify = [${JSON.stringify(process.execPath)}, ${JSON.stringify(main)}, "hook", "codex", "notify", "--state-dir", ${JSON.stringify(state)}]`,
    );
    // As the harness runs it: through sh, in a project's folder.
    const ran = spawnSync('/bin/sh', ['-c', command], {
      cwd: tempDir(),
      input: preToolUse,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(ran).toMatchObject({ status: 0, stdout: '{}\n', stderr: '' });
    expect(spool(state)).toEqual([expect.objectContaining({ harness: 'codex', session: 'S1', phase: 'tool' })]);
  });
});

describe('the exporter reads the spool', () => {
  it('Gemini CLI waiting for approval, which its files show as done, is asking once the hook said so', () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'captures/gemini-cli/tool'), home, { recursive: true });
    const state = tempDir();
    const sessions = () => {
      const r = run(['sessions', '--json', '--since', '30d', '--state-dir', state], envFor(home));
      expect(r.status).toBe(0);
      return (JSON.parse(r.stdout) as { harness: string; status: string; reason: string }[]).filter(
        (s) => s.harness === 'gemini-cli',
      );
    };
    expect(sessions()).toEqual([expect.objectContaining({ status: 'idle' })]);
    const id = '5da0c0d6-ad8a-42cd-969c-34c4a9293815';
    for (const e of [
      { hook_event_name: 'BeforeTool', tool_name: 'run_shell_command' },
      { hook_event_name: 'Notification', notification_type: 'ToolPermission', details: { type: 'exec' } },
    ]) {
      expect(hook(['gemini-cli', '--state-dir', state], JSON.stringify({ ...e, session_id: id })).status).toBe(0);
    }
    expect(sessions()).toEqual([expect.objectContaining({ status: 'asking', reason: 'approval' })]);
  });
});
