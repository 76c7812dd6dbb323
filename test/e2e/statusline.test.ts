// The statusline command as Claude Code runs it (JSON on stdin, the line on stdout, exit 0 even
// when something is wrong), and the exporter exporting what it recorded.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, MAIN, run, samples, tempDir, until } from '../helpers/run.js';

const statusline = (args: string[], stdin: string, env: NodeJS.ProcessEnv) => {
  const r = spawnSync(process.execPath, [MAIN, 'statusline', ...args], {
    env,
    input: stdin,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout };
};

const RECORDED = 'claude-code-statusline.json';

/** Whether process `pid` has made its stdin non-blocking (Node does, as it opens stdin to read it), or is gone. */
function stdinOpened(pid: number): boolean {
  try {
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/0`, 'utf8'))?.[1];
    return flags !== undefined && (parseInt(flags, 8) & 0o4000) !== 0;
  } catch {
    return true;
  }
}

/** A status as Claude Code writes it, for a subscription with its 5-hour window. */
const status = (extra: Record<string, unknown> = {}, resetsAt = Date.now() / 1000 + 3600) =>
  JSON.stringify({
    session_id: 's-1',
    model: { display_name: 'Sonnet 4.6' },
    context_window: { used_percentage: 12 },
    rate_limits: { five_hour: { used_percentage: 50, resets_at: resetsAt } },
    ...extra,
  });

describe('statusline', () => {
  it('prints one line, records the windows, and the exporter exports them (a window past its reset as 0)', () => {
    const home = tempDir();
    const state = tempDir();
    const now = Date.now() / 1000;
    const stdin = JSON.stringify({
      session_id: 's-1',
      model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
      context_window: { context_window_size: 1000000, used_percentage: 12 },
      rate_limits: {
        five_hour: { used_percentage: 93, resets_at: now + 3600 },
        seven_day: { used_percentage: 40, resets_at: now + 86400 },
        seven_day_opus: { used_percentage: 80, resets_at: now - 60 },
      },
    });
    const r = statusline(['--state-dir', state], stdin, envFor(home, { NO_COLOR: '1' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^Sonnet 4\.6 │ ctx 12% │ - session, - today │ 5h 93% ↻(59m|1h00m) │ 7d 40% ↻(23h59m|1d0h)\n$/,
    );
    const once = run(['once', '--state-dir', state], envFor(home));
    expect(once.status).toBe(0);
    const limits = samples(once.stdout).filter(
      (s) => s.name.startsWith('coding_agent_usage_limit_') && s.labels.harness === 'claude-code',
    );
    expect(limits.map((s) => [s.name, s.labels.window, s.value])).toEqual([
      ['coding_agent_usage_limit_used_ratio', '5h', 0.93],
      ['coding_agent_usage_limit_used_ratio', '7d', 0.4],
      ['coding_agent_usage_limit_used_ratio', '7d_opus', 0],
      ['coding_agent_usage_limit_resets_timestamp_seconds', '5h', now + 3600],
      ['coding_agent_usage_limit_resets_timestamp_seconds', '7d', now + 86400],
    ]);
  });

  it('prints a line and exits 0 on a bad flag, a bad configuration or nothing on stdin', () => {
    const home = tempDir();
    for (const [args, line] of [
      [['--no-such-flag'], /^coding-agent-exporter: unknown flag --no-such-flag/],
      [['--rescan-seconds', 'soon'], /^coding-agent-exporter: .*rescanSeconds/],
      [['--state-dir', tempDir()], /^coding-agent-exporter: no status \(no JSON on stdin\)$/],
    ] as const) {
      const r = statusline([...args], '', envFor(home));
      expect(r.status).toBe(0);
      expect(r.stdout.trimEnd()).toMatch(line);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(run(['once', '--format', '{model}'], envFor(home)).status).toBe(2);
  });

  it('reads stdin to its end: from a writer that writes late and in pieces, and a payload of 100 KB', async () => {
    const env = envFor(tempDir(), { NO_COLOR: '1' });
    const child = spawn(process.execPath, [MAIN, 'statusline', '--state-dir', tempDir()], {
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stdin.on('error', () => undefined); // a command that stopped reading: its line says so
    const closed = new Promise((resolve) => child.on('close', resolve));
    // Late: only once the command is reading stdin, then in two pieces.
    await until(async () => stdinOpened(child.pid!) || undefined, 30_000, 'the command reading stdin', 5);
    const text = status();
    await new Promise((resolve) => child.stdin.write(text.slice(0, 40), resolve));
    child.stdin.end(text.slice(40));
    await closed;
    expect(stdout).toMatch(/^Sonnet 4\.6 │ ctx 12% │ .* │ 5h 50% /);

    const large = statusline(['--state-dir', tempDir()], status({ padding: 'x'.repeat(100_000) }), env);
    expect(large.stdout).toMatch(/^Sonnet 4\.6 │ ctx 12% │ .* │ 5h 50% /);
  });

  it('refuses a payload above 4 MB, and records no session id that is no id nor a reset time that is no time', () => {
    const env = envFor(tempDir(), { NO_COLOR: '1' });
    const state = tempDir();
    const huge = statusline(['--state-dir', state], status({ session_id: 'x'.repeat(20 << 20) }), env);
    expect(huge.stdout).toBe('coding-agent-exporter: no status (stdin is larger than 4 MB)\n');
    expect(existsSync(join(state, RECORDED))).toBe(false);

    for (const id of ['y'.repeat(100_000), 'a/../b', '']) {
      expect(statusline(['--state-dir', state], status({ session_id: id }, 1e300), env).stdout).toMatch(
        /^Sonnet 4\.6 │ ctx 12% │ .* │ 5h 50% ↻- /,
      );
    }
    expect(statSync(join(state, RECORDED)).size).toBeLessThan(1000);
    expect(JSON.parse(readFileSync(join(state, RECORDED), 'utf8'))).toMatchObject({
      sessions: {},
      limits: [{ window: '5h', usedRatio: 0.5 }],
    });
    const once = run(['once', '--state-dir', state], env);
    const limits = samples(once.stdout).filter(
      (s) => s.name.startsWith('coding_agent_usage_limit_') && s.labels.harness === 'claude-code',
    );
    expect(limits.map((s) => [s.name, s.labels.window, s.value])).toEqual([
      ['coding_agent_usage_limit_used_ratio', '5h', 0.5],
    ]);
  });
});
