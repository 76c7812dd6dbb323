// `coding-agent-exporter hook` as a harness runs it, and what the exporter makes of its spool.
// The hook never fails the agent: whatever goes wrong, exit 0, `{}` on stdout, one line on stderr.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, FIXTURES, MAIN, run, tempDir } from '../helpers/run.js';

const DROP = ['--inh-caps=-dac_override', '--bounding-set=-dac_override'];
const canDrop = spawnSync('setpriv', [...DROP, 'true']).status === 0;

function hook(args: string[], input: string, env = envFor(tempDir()), prefix: string[] = []): { status: number; stdout: string; stderr: string } {
  const [cmd, ...pre] = prefix.length > 0 ? [...prefix, process.execPath] : [process.execPath];
  const r = spawnSync(cmd, [...pre, MAIN, 'hook', ...args], { env, input, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const spool = (dir: string) => readFileSync(join(dir, 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const preToolUse = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'S1', cwd: '/w', tool_name: 'Bash', tool_input: { command: 'cat ~/.netrc' } });

describe('the hook command', () => {
  it('appends what a status needs to the spool in the state folder and prints {}', () => {
    const state = tempDir();
    const r = hook(['claude-code', 'PreToolUse', '--state-dir', state], preToolUse);
    expect(r).toMatchObject({ status: 0, stdout: '{}\n', stderr: '' });
    expect(spool(state)).toEqual([expect.objectContaining({ harness: 'claude-code', session: 'S1', event: 'PreToolUse', phase: 'tool', tool: 'Bash', cwd: '/w' })]);
    expect(readFileSync(join(state, 'hooks.jsonl'), 'utf8')).not.toContain('netrc');
  });

  it('writes where the exporter reads: the state folder from the environment or the --config file', () => {
    const byEnv = tempDir();
    expect(hook(['codex'], preToolUse, envFor(tempDir(), { CODING_AGENT_EXPORTER_STATE_DIR: byEnv })).status).toBe(0);
    const byFile = tempDir();
    const config = join(tempDir(), 'c.json');
    writeFileSync(config, JSON.stringify({ stateDir: byFile }));
    expect(hook(['gemini-cli', '--config', config], JSON.stringify({ hook_event_name: 'AfterAgent', session_id: 'S2' })).status).toBe(0);
    expect(spool(byEnv)[0]).toMatchObject({ harness: 'codex', phase: 'tool' });
    expect(spool(byFile)[0]).toMatchObject({ harness: 'gemini-cli', phase: 'stop' });
  });

  it('takes Codex\'s notify payload from its last argument and prints nothing', () => {
    const state = tempDir();
    const r = spawnSync(process.execPath, [MAIN, 'hook', 'codex', 'notify', '--state-dir', state, JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'T1' })],
      { env: envFor(tempDir()), encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(spool(state)).toEqual([expect.objectContaining({ harness: 'codex', session: 'T1', event: 'notify', phase: 'stop' })]);
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
    const r = hook(['claude-code', '--state-dir', state], preToolUse, envFor(tempDir()), process.getuid?.() === 0 ? ['setpriv', ...DROP] : []);
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
  ])('%s at the spool: exit 0 at once, nothing written, one line on stderr', (_, make) => {
    const state = tempDir();
    const spool = join(state, 'hooks.jsonl');
    make(spool);
    const r = hook(['claude-code', '--state-dir', state], preToolUse);
    expect(r).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/not a regular file|ELOOP/)]);
    expect(existsSync(spool) && statSync(spool).isFile()).toBe(false);
  }, 60_000);

  it('the command word after a flag runs the same hook', () => {
    const state = tempDir();
    expect(spawnSync(process.execPath, [MAIN, '--state-dir', state, 'hook', 'qwen-code'], { env: envFor(tempDir()), input: preToolUse, encoding: 'utf8' }).status).toBe(0);
    expect(spool(state)[0]).toMatchObject({ harness: 'qwen-code', phase: 'tool' });
  });
});

describe('hooks print', () => {
  it('prints each harness\'s settings, naming the state folder where it is not the default', () => {
    const state = tempDir();
    const r = run(['hooks', 'print', 'claude-code', '--state-dir', state], envFor(tempDir()));
    expect(r.status).toBe(0);
    const [comment, ...json] = r.stdout.trim().split('\n');
    expect(comment).toContain('~/.claude/settings.json');
    const settings = JSON.parse(json.join('\n')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(Object.keys(settings.hooks)).toEqual(['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Notification', 'Stop', 'SessionEnd']);
    expect(settings.hooks.Stop![0]!.hooks[0]!.command).toBe(`coding-agent-exporter hook claude-code Stop --state-dir ${state}`);
    expect(run(['hooks', 'print', 'codex'], envFor(tempDir())).stdout).toMatch(/notify = \["coding-agent-exporter", "hook", "codex", "notify"\][\s\S]*trust/);
    expect(run(['hooks', 'print', 'aider'], envFor(tempDir()))).toMatchObject({ status: 2, stderr: expect.stringMatching(/HARNESS one of claude-code/) });
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
      return (JSON.parse(r.stdout) as { harness: string; status: string; reason: string }[]).filter((s) => s.harness === 'gemini-cli');
    };
    expect(sessions()).toEqual([expect.objectContaining({ status: 'idle' })]);
    const id = '5da0c0d6-ad8a-42cd-969c-34c4a9293815';
    for (const e of [{ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command' }, { hook_event_name: 'Notification', notification_type: 'ToolPermission', details: { type: 'exec' } }]) {
      expect(hook(['gemini-cli', '--state-dir', state], JSON.stringify({ ...e, session_id: id })).status).toBe(0);
    }
    expect(sessions()).toEqual([expect.objectContaining({ status: 'asking', reason: 'approval' })]);
  });
});
