// The command line as a newcomer uses it: help that lists every command, flag and harness (made
// from the schema and the registry), addresses as other exporters take them, misspellings refused,
// and messages that say what to do next.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/help.js';
import { HARNESSES } from '../../src/collectors/registry.js';
import { configKeys } from '../../src/config/load.js';
import { envFor, MAIN, run, samples, tempDir, until } from '../helpers/run.js';

const home = tempDir();

describe('help', () => {
  it.each([[['--help']], [['help']], [['serve', '--help']]])(
    '%j lists every command, flag, variable and harness',
    (args) => {
      const r = run(args, envFor(home));
      expect(r.status).toBe(0);
      for (const command of Object.keys(COMMANDS)) expect(r.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
      for (const key of configKeys()) {
        if (key.key.startsWith('collectors.')) continue;
        if (key.arg) expect(r.stdout).toContain(`--${key.arg} `);
        else if (key.env) expect(r.stdout).toContain(key.env);
      }
      expect(r.stdout).toContain('--collector.<id> ');
      expect(r.stdout).toContain('CODING_AGENT_EXPORTER_<ID>_ROOTS');
      for (const id of Object.keys(HARNESSES)) expect(r.stdout).toMatch(new RegExp(`<id>: .*\\b${id}\\b`));
      expect(r.stdout).toContain('--config FILE');
    },
  );

  it("help <command> is that command's --help", () => {
    const r = run(['help', 'sessions'], envFor(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(run(['sessions', '--help'], envFor(home)).stdout);
    expect(r.stdout).toMatch(/^Usage: coding-agent-exporter sessions/);
    expect(r.stdout).toContain('--since DURATION');
  });
});

describe('command words', () => {
  // A command word after the flags was taken for a flag's value, and `serve` ran instead: a cron
  // job's `once` became a server that never exits.
  it.each([
    [['--config', 'CONFIG', '--state-dir', 'STATE', 'once']],
    [['--state-dir', 'STATE', 'once', '--config', 'CONFIG']],
    [['--config=CONFIG', '--watch', 'once', '--state-dir', 'STATE']],
  ])('%j runs once', (args) => {
    const config = join(tempDir(), 'c.json');
    writeFileSync(config, JSON.stringify({ project: { mode: 'hash' } }));
    const state = tempDir();
    const r = run(
      args.map((a) => a.replace('CONFIG', config).replace('STATE', state)),
      envFor(home),
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# HELP coding_agent_/m);
  });

  it('runs sessions after --state-dir and its value', () => {
    const r = run(['--state-dir', tempDir(), 'sessions'], envFor(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^no sessions active in the last 24h/);
  });

  it.each([
    [['once', 'extra'], 'unexpected argument "extra": once takes no more words (see coding-agent-exporter help once)'],
    [
      ['onse'],
      'unknown command "onse" (did you mean once?); the commands are serve, once, sessions, top, demo, report, statusline, hook, hooks, doctor, help',
    ],
    [
      ['--state-dir', '/tmp/x', 'sesions'],
      'unknown command "sesions" (did you mean sessions?); the commands are serve, once, sessions, top, demo, report, statusline, hook, hooks, doctor, help',
    ],
    [
      ['bogus'],
      'unknown command "bogus"; the commands are serve, once, sessions, top, demo, report, statusline, hook, hooks, doctor, help',
    ],
    [['once', '--listen-adress', '127.0.0.1:1'], 'unknown flag --listen-adress (did you mean --listen-address?)'],
    [['sessions', '--jsno'], 'unknown flag --jsno (did you mean --json?)'],
    [['serve', '--json'], '--json: only the sessions, report and doctor commands take it'],
    [['once', '--json'], '--json: only the sessions, report and doctor commands take it'],
    [
      ['--collector.claude', 'false', 'once'],
      'unknown flag --collector.claude (did you mean --collector.claude-code?)',
    ],
    [
      ['help', 'sesions'],
      'unknown command "sesions" (did you mean sessions?); the commands are serve, once, sessions, top, demo, report, statusline, hook, hooks, doctor, help',
    ],
  ])('refuses %j in one line', (args, message) => {
    const r = run(args, envFor(home));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`coding-agent-exporter: ${message}\n`);
    expect(r.stdout).toBe('');
  });
});

describe('flags and variables', () => {
  it('takes --listen-address :PORT as every interface, with a warning', async () => {
    const child = spawn(process.execPath, [MAIN, '--listen-address', ':0', '--state-dir', tempDir()], {
      env: envFor(home),
    });
    try {
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const port = await until(
        async () => /"msg":"listening","address":"[^"]*:(\d+)"/.exec(err)?.[1],
        10_000,
        'listening',
      );
      // Logged after the address, perhaps in another chunk of output.
      await until(
        async () => (/"level":"warn","msg":"listening on every interface/.test(err) ? true : undefined),
        10_000,
        'the warning',
      );
      expect((await fetch(`http://127.0.0.1:${port}/-/healthy`)).status).toBe(200);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.each([[['--listen-address']], [['--listen-address', '--state-dir', '/tmp/x']]])(
    '%j says the value is missing',
    (args) => {
      const r = run(args, envFor(home));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^coding-agent-exporter: --listen-address: a value is missing \(listenAddress: /);
    },
  );

  it('stops on an unknown CODING_AGENT_EXPORTER_ variable as on an unknown key', () => {
    const r = run(
      ['once', '--state-dir', tempDir()],
      envFor(home, { CODING_AGENT_EXPORTER_LISTEN_ADRESS: '0.0.0.0:1' }),
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('coding-agent-exporter: unknown environment variable CODING_AGENT_EXPORTER_LISTEN_ADRESS\n');
  });

  it('logs a missing default root at debug, a missing configured root at warn', () => {
    const quiet = run(['once', '--state-dir', tempDir()], envFor(home));
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).not.toContain('root not found');
    const debug = run(['once', '--state-dir', tempDir(), '--log-level', 'debug'], envFor(home));
    expect(debug.stderr).toMatch(/"level":"debug","msg":"root not found","collector":"codex"/);
    const configured = run(
      ['once', '--state-dir', tempDir()],
      envFor(home, { CODING_AGENT_EXPORTER_CODEX_ROOTS: '/nonexistent/codex' }),
    );
    expect(configured.stderr).toMatch(
      /"level":"warn","msg":"root not found","collector":"codex","root":"\/nonexistent\/codex"/,
    );
    expect(configured.stderr.match(/root not found/g)).toHaveLength(1);
  });
});

describe('sessions', () => {
  it('says under the table that statuses come from files and hooks alone where there is no process table (as on Windows)', () => {
    const env = envFor(home, {
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true',
      CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: tempDir(),
    });
    const r = run(['sessions', '--state-dir', tempDir()], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^no sessions active .*\nno process table on this platform \(linux\): statuses come from session files and hooks alone\n$/,
    );
    expect(run(['sessions', '--json', '--state-dir', tempDir()], env).stdout).toBe('[]\n');
  });

  it('says how far back it looked and how to look further when it finds nothing', () => {
    const r = run(['sessions', '--state-dir', tempDir()], envFor(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'no sessions active in the last 24h (the activity window, sessions.activeWindowSeconds); look further back with --since 7d\n',
    );
    const week = run(['sessions', '--since', '7d', '--state-dir', tempDir()], envFor(home));
    expect(week.stdout).toMatch(/^no sessions active in the last 7d .*--since 30d\n$/);
    // Since a day's start (local time).
    const d = new Date();
    const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const day = run(['sessions', '--since', today, '--state-dir', tempDir()], envFor(home));
    expect(day.stdout).toMatch(/^no sessions active in the last (\d+h\d+m|\d+[smh]) .*--since 7d\n$/);
  });
});

describe('once', () => {
  it('writes the whole exposition into a pipe read slowly (more than a pipe buffer holds)', () => {
    // 100 projects, one answered prompt each: about 300 KB of exposition.
    const big = tempDir();
    const now = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      const dir = join(big, '.claude', 'projects', `-work-p${i}`);
      mkdirSync(dir, { recursive: true });
      const base = { timestamp: now, cwd: `/work/p${i}`, sessionId: `s${i}` };
      writeFileSync(
        join(dir, `s${i}.jsonl`),
        [
          { ...base, type: 'user', uuid: `u${i}`, message: { role: 'user', content: 'hello' } },
          {
            ...base,
            type: 'assistant',
            uuid: `a${i}`,
            message: {
              id: `msg_${i}`,
              model: 'claude-sonnet-4-5',
              stop_reason: 'end_turn',
              usage: { input_tokens: 10, output_tokens: 5 },
              content: [{ type: 'text', text: 'hi' }],
            },
          },
        ]
          .map((r) => `${JSON.stringify(r)}\n`)
          .join(''),
      );
    }
    const env = envFor(big, { CODING_AGENT_EXPORTER_PROJECT_MAX: '1000' });
    const direct = run(['once', '--state-dir', tempDir()], env);
    expect(direct.stdout.length).toBeGreaterThan(128 * 1024);
    const piped = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${MAIN}" once --state-dir "${tempDir()}" | (sleep 1; cat)`],
      { env, encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    expect(piped.stdout.split('\n').length).toBe(direct.stdout.split('\n').length);
    expect(piped.stdout.slice(-200)).toBe(direct.stdout.slice(-200));
  });
});

describe('a change of project.mode', () => {
  it('keeps the labels of what was counted, and the next start says so once', () => {
    const h = tempDir();
    const state = tempDir();
    const now = new Date().toISOString();
    const dir = join(h, '.claude', 'projects', '-work-app');
    mkdirSync(dir, { recursive: true });
    const base = { timestamp: now, cwd: '/work/app', sessionId: 's1' };
    writeFileSync(
      join(dir, 's1.jsonl'),
      `${JSON.stringify({ ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello' } })}\n`,
    );
    const prompts = (out: string) =>
      samples(out)
        .filter((s) => s.name === 'coding_agent_prompts_total')
        .map((s) => [s.labels.project, s.value]);
    const once = (mode: string) => run(['once', '--state-dir', state, '--project-mode', mode], envFor(h));
    expect(prompts(once('name').stdout)).toEqual([['app', 1]]);
    const changed = once('hash');
    expect(prompts(changed.stdout)).toEqual([['app', 1]]);
    expect(changed.stderr).toContain('project.mode or project.aliases changed');
    expect(once('hash').stderr).not.toContain('project.mode or project.aliases changed');
  });
});
