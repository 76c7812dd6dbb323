// The statusline command as Claude Code runs it (JSON on stdin, the line on stdout, exit 0 even
// when something is wrong), and the exporter exporting what it recorded.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { envFor, MAIN, run, samples, tempDir } from '../helpers/run.js';

const statusline = (args: string[], stdin: string, env: NodeJS.ProcessEnv) => {
  const r = spawnSync(process.execPath, [MAIN, 'statusline', ...args], { env, input: stdin, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout };
};

describe('statusline', () => {
  it('prints one line, records the windows, and the exporter exports them (a window past its reset as 0)', () => {
    const home = tempDir();
    const state = tempDir();
    const now = Date.now() / 1000;
    const stdin = JSON.stringify({
      session_id: 's-1', model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
      context_window: { context_window_size: 1000000, used_percentage: 12 },
      rate_limits: {
        five_hour: { used_percentage: 93, resets_at: now + 3600 },
        seven_day: { used_percentage: 40, resets_at: now + 86400 },
        seven_day_opus: { used_percentage: 80, resets_at: now - 60 },
      },
    });
    const r = statusline(['--state-dir', state], stdin, envFor(home, { NO_COLOR: '1' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Sonnet 4\.6 │ ctx 12% │ - session, - today │ 5h 93% ↻(59m|1h00m) │ 7d 40% ↻(23h59m|1d0h)\n$/);
    const once = run(['once', '--state-dir', state], envFor(home));
    expect(once.status).toBe(0);
    const limits = samples(once.stdout).filter((s) => s.name.startsWith('coding_agent_usage_limit_') && s.labels.harness === 'claude-code');
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
});
