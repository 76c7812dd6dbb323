#!/usr/bin/env node
// Runs before `npm test`: the system programs the tests start for real must be on the PATH.
// Where it may (Debian or Ubuntu, as root or with passwordless sudo) it installs the missing ones
// with apt-get; anywhere else it stops at once and names the one command that installs them.
// Never a silent skip: a test that cannot run is a failure, not a pass.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Program → Debian package and Homebrew formula that provide it.
const NEEDED = {
  promtool: { apt: 'prometheus', brew: 'prometheus' },
  prometheus: { apt: 'prometheus', brew: 'prometheus' },
  'victoria-metrics': { apt: 'victoria-metrics', brew: 'victoriametrics' },
  vmalert: { apt: 'victoria-metrics', brew: 'victoriametrics' },
  openssl: { apt: 'openssl', brew: 'openssl' },
  tmux: { apt: 'tmux', brew: 'tmux' },
  chromium: { apt: 'chromium', brew: '--cask chromium' },
  // The macOS process table's programs (test/process/ps-table.test.ts), run here as Linux's: a
  // slim Debian has neither. macOS has both in its base system.
  ps: { apt: 'procps', brew: 'procps' },
  lsof: { apt: 'lsof', brew: 'lsof' },
  // That the committed WebAssembly is built from its C (test/readers/skip.test.ts).
  clang: { apt: 'clang', brew: 'llvm' },
  'wasm-ld': { apt: 'lld', brew: 'lld' },
};

const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const missing = () => Object.keys(NEEDED).filter((cmd) => !onPath(cmd));
const unique = (xs) => [...new Set(xs)];

const absent = missing();
if (absent.length === 0) process.exit(0);

const apt = unique(absent.map((c) => NEEDED[c].apt));
const isRoot = process.getuid?.() === 0;
const sudoWorks = !isRoot && onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
const canApt =
  process.platform === 'linux' && existsSync('/etc/debian_version') && onPath('apt-get') && (isRoot || sudoWorks);

if (canApt) {
  process.stderr.write(`test-deps: installing ${apt.join(', ')} (for ${absent.join(', ')}) with apt-get\n`);
  const sudo = isRoot ? [] : ['sudo', '-n'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => {
    const [cmd, ...rest] = [...sudo, ...args];
    return spawnSync(cmd, rest, { stdio: 'inherit', env }).status === 0;
  };
  // The packages start their own services where an init system runs; the tests start theirs on
  // other ports, so those do not matter.
  if (
    run(['apt-get', 'update', '-qq']) &&
    run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...apt]) &&
    missing().length === 0
  ) {
    process.exit(0);
  }
  process.stderr.write(
    `test-deps: apt-get could not install ${apt.join(', ')}; still missing: ${missing().join(', ')}\n`,
  );
  process.exit(1);
}

const how =
  process.platform === 'darwin'
    ? `brew install ${unique(absent.map((c) => NEEDED[c].brew)).join(' ')}`
    : `sudo apt-get install -y --no-install-recommends ${apt.join(' ')}`;
process.stderr.write(
  `test-deps: the tests need ${absent.join(', ')}, which are not on the PATH. Install them with:\n  ${how}\n`,
);
process.exit(1);
