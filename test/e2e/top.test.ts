// `top` in a real terminal: tmux runs it on the demo's sample home, `capture-pane` reads what a
// person would see, keys go in with `send-keys`.

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/demo.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { MAIN, envFor, listening, ready, run, tempDir, until } from '../helpers/run.js';

// A tmux server of this test's own (other tests and people may run tmux on the same machine).
const socket = `cae-top-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', 'top');
const paneFlag = (flag: string) => tmux('display-message', '-p', '-t', 'top', `#{${flag}}`).trim();

// What the terminal showed is kept as a test artifact (not committed).
const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

let home: string;
let stateDir: string;

beforeAll(() => {
  home = tempDir();
  stateDir = tempDir();
  const demo = seedDemo(home);
  for (let i = 0; i < 3; i++) demo.advance();
  demo.close();
});

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
});

describe('top', () => {
  it('prints one screen when its output is not a terminal, the session waiting on the user first', () => {
    const r = run(['top', '--state-dir', stateDir], envFor(home));
    expect(r.status).toBe(0);
    // No log line (a server's `first scan done`), and the screen's last line ends.
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/\n$/);
    const rows = r.stdout.split('\n').filter((l) => /^(claude-code|codex|opencode)\s/.test(l));
    expect(rows[0]).toMatch(/^claude-code\s+webshop\s+asking\s+question/);
    expect(r.stdout).toMatch(/docs-site\s+error\s+turn-failed/);
    // The demo's Codex session reports its 5-hour and weekly windows.
    expect(r.stdout).toMatch(
      /^limits codex 5h [▓░]{8} +\d+% resets in \dh\d\dm +codex 7d [▓░]{8} +\d+% resets in \dd\d+h$/m,
    );
    // eslint-disable-next-line no-control-regex -- an ANSI escape is what must not be there
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  it('ends, run after run, two at a time (on Node.js 24 and 26 one run in about 70 hung in its exit once V8 was told to favour memory)', async () => {
    const once = () =>
      promisify(execFile)(process.execPath, [MAIN, 'top', '--state-dir', tempDir()], {
        env: envFor(home),
        timeout: 20_000,
        killSignal: 'SIGKILL',
      });
    let ended = 0;
    for (let i = 0; i < 15; i++) {
      await Promise.all([once(), once()]);
      ended += 2;
    }
    expect(ended).toBe(30);
  }, 120_000);

  it('lists every session its header counts, agents no session file is joined to too, as `sessions` does', () => {
    const proc = fakeProc();
    proc.add(500, { argv: ['/usr/bin/python3', '/home/u/.local/bin/aider'], cwd: '/src/chat-bot' });
    const env = envFor(home, {
      CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true',
      CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root,
    });
    const top = run(['top', '--state-dir', tempDir()], env).stdout;
    const rows = top.split('\n').filter((l) => /^(claude-code|codex|opencode|aider)\s/.test(l));
    expect(rows).toContainEqual(expect.stringMatching(/^aider\s+chat-bot\s+idle\s+cpu-idle\s.*process-only\s+now$/));
    const counted = [...top.match(/^sessions: (.*)$/m)![1]!.matchAll(/(\d+) \w+/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(counted).toBe(rows.length);
    const listed = JSON.parse(run(['sessions', '--json', '--state-dir', tempDir()], env).stdout) as {
      harness: string;
      project: string;
      status: string;
    }[];
    expect(listed.map((r) => `${r.harness} ${r.project} ${r.status}`).sort()).toEqual(
      rows.map((l) => l.split(/\s+/).slice(0, 3).join(' ')).sort(),
    );
  });

  it('starts from the state database without ever writing it (safe beside a running exporter)', () => {
    const dir = tempDir();
    expect(run(['once', '--state-dir', dir], envFor(home)).status).toBe(0);
    const before = digest(join(dir, 'state.db'));
    const r = run(['top', '--state-dir', dir], envFor(home));
    expect(r.stdout).toMatch(/webshop\s+asking\s+question/);
    expect(digest(join(dir, 'state.db'))).toBe(before);
    expect(existsSync(join(dir, 'state.db-wal')) ? statSync(join(dir, 'state.db-wal')).size : 0).toBe(0);
  });

  it("shows a running exporter's sessions with --url", async () => {
    const { child, url } = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()], envFor(home));
    try {
      const base = await url;
      await ready(base);
      const { stdout: r } = await promisify(execFile)(process.execPath, [MAIN, 'top', '--url', base], {
        env: envFor(home),
      });
      expect(r).toContain(base);
      expect(r.split('\n').find((l) => /^claude-code\s/.test(l))).toMatch(/webshop\s+asking\s+question/);
      // An address without a scheme is http's.
      const { stdout: bare } = await promisify(execFile)(
        process.execPath,
        [MAIN, 'top', '--url', base.replace('http://', '')],
        { env: envFor(home) },
      );
      expect(bare).toContain(base);
    } finally {
      child.kill('SIGKILL');
    }
    // 127.0.0.1:1 is a port fetch refuses to try (`bad port`); the exporter's, once it is gone, is dead.
    const dead = await url;
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    const refused = run(['top', '--url', dead], envFor(home));
    expect(refused.status).toBe(2);
    // Which address failed, and why (not fetch's `fetch failed`).
    const [, address, why] = /^coding-agent-exporter: --url (\S+): \/api\/v1\/\w+: (.*)\n$/.exec(refused.stderr) ?? [];
    expect([address, why]).toEqual([dead, `connect ECONNREFUSED ${dead.replace('http://', '')}`]);
  });

  it('never prints the password or token of --url, whether the URL is refused, unreachable or not a URL', () => {
    for (const url of [
      'http://prom:s3cret@127.0.0.1:1',
      'http://prom:s3cr/et@127.0.0.1:1',
      'ftp://prom:s3cret@127.0.0.1:1',
      'prom:s3cret@127.0.0.1:1',
      'http://127.0.0.1:1/?token=s3cret',
      '127.0.0.1:1?api_key=s3cret',
    ]) {
      const r = run(['top', '--url', url], envFor(home));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/127\.0\.0\.1:1/);
      expect(r.stderr + r.stdout).not.toMatch(/s3cr/);
    }
  });

  it('runs full-screen in tmux: waiting session on top, filter, sort, and the terminal restored after q', async () => {
    const env = envFor(home, { TERM: 'xterm-256color', NO_COLOR: '1' });
    tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'top',
      '-x',
      '150',
      '-y',
      '30',
      '-e',
      `HOME=${home}`,
      'bash',
      '--norc',
      '--noprofile',
    );
    tmux('send-keys', '-t', 'top', 'clear; echo shell-before-top', 'Enter');
    await until(async () => (screen().includes('shell-before-top\n') ? true : undefined), 5000, 'the shell');
    const command = `${process.execPath} ${MAIN} top --state-dir ${join(stateDir, 'tmux')}`;
    tmux(
      'send-keys',
      '-t',
      'top',
      `env -i PATH="${env.PATH}" HOME="${home}" TERM=xterm-256color NO_COLOR=1 ${command}`,
      'Enter',
    );

    const first = await until(
      async () => {
        const s = screen();
        // The whole frame: tmux may show a frame half drawn, its last line (the keys) not yet there.
        return s.includes('coding-agent-exporter top') &&
          /webshop\s+asking/.test(s) &&
          /q quit\s+s sort\s+\/ filter\s+i idle/.test(s)
          ? s
          : undefined;
      },
      15_000,
      'the top screen',
    );
    expect(paneFlag('alternate_on')).toBe('1');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'top.txt'), first);
    const rows = first.split('\n').filter((l) => /^(claude-code|codex|opencode)\s/.test(l));
    expect(rows[0]).toMatch(/^claude-code\s+webshop\s+asking\s+question/);
    expect(first).toMatch(/docs-site\s+error\s+turn-failed/);
    expect(first).toMatch(/q quit\s+s sort\s+\/ filter\s+i idle/);
    // Never wider than the terminal.
    for (const line of first.split('\n')) expect(line.length).toBeLessThanOrEqual(150);

    // `/` filters by harness or project.
    tmux('send-keys', '-t', 'top', '/');
    tmux('send-keys', '-t', 'top', '-l', 'docs');
    tmux('send-keys', '-t', 'top', 'Enter');
    const filtered = await until(
      async () => {
        const s = screen();
        return /filter: docs\s+idle:/.test(s) ? s : undefined;
      },
      5000,
      'the filter',
    );
    const shown = filtered.split('\n').filter((l) => /^(claude-code|codex|opencode)\s/.test(l));
    expect(shown.length).toBe(1);
    expect(shown[0]).toMatch(/docs-site/);

    // `s` sorts by cost next.
    tmux('send-keys', '-t', 'top', 's');
    await until(async () => (screen().includes('sort: cost') ? true : undefined), 5000, 'the sort');

    tmux('send-keys', '-t', 'top', 'q');
    const after = await until(
      async () => (paneFlag('alternate_on') === '0' ? screen() : undefined),
      5000,
      'top to quit',
    );
    expect(after).toContain('shell-before-top');
    expect(after).not.toContain('coding-agent-exporter top');
    // Nothing logged after it quits (the log lines held while it ran were a server's info).
    expect(after).not.toContain('"level"');
    expect(paneFlag('cursor_flag')).toBe('1');
    // The shell has its terminal back: it echoes what is typed (raw mode is off).
    tmux('send-keys', '-t', 'top', 'echo back-in-the-shell', 'Enter');
    await until(async () => (screen().includes('back-in-the-shell\n') ? true : undefined), 5000, 'the shell again');

    // An exporter that does not answer is named with why before the screen is taken (it was a blank screen).
    const dead = await new Promise<number>((r) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => r(port));
      });
    });
    tmux(
      'send-keys',
      '-t',
      'top',
      `env -i PATH="${env.PATH}" TERM=xterm-256color ${process.execPath} ${MAIN} top --url 127.0.0.1:${dead}; echo exit=$?`,
      'Enter',
    );
    const refused = await until(
      async () => (/exit=\d/.test(screen()) ? screen() : undefined),
      10_000,
      'top to refuse the address',
    );
    expect(refused).toContain(`coding-agent-exporter: --url 127.0.0.1:${dead}: /api/v1/`);
    expect(refused).toContain(`connect ECONNREFUSED 127.0.0.1:${dead}`);
    expect(refused).toContain('exit=2');
    expect(paneFlag('alternate_on')).toBe('0');
  });
});
