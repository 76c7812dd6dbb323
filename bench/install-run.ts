// An install as a user runs it, timed: the package as `npm pack` publishes it, installed by npm into
// an empty folder on a given Node.js (`npm install --omit=dev <tarball>`), once with no compiler on
// the PATH, once with one (and the Node.js headers of that build, as node-gyp needs them offline),
// and once with `--omit=optional`. npm's cache is the user's: what is timed is the install, not the
// registry. Which SQLite engine the installed exporter then runs on is what its `doctor --json` says.

import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../src/files/package-root.js';

export interface InstallRun {
  label: string;
  ok: boolean;
  seconds: number;
  /** Package folders in node_modules, the exporter's own included. */
  packages: number;
  bytes: number;
  /** Whether better-sqlite3 (the optional dependency) was left installed. */
  betterSqlite3: boolean;
  /** The engine `doctor` reports, or why it could not run. */
  sqlite: string;
}

/** What builds native code: kept off the PATH of the "no compiler" install. */
const COMPILERS = /^(cc|c\+\+|cpp|gcc|g\+\+|clang|make|gmake|python\d?(\.\d+)?|x86_64-linux-gnu-.*)([-.].*)?$/;

/** A folder of links to every program of /usr/bin but those that build native code, and to `node`. */
function pathWithoutCompiler(node: string, into: string): string {
  mkdirSync(into, { recursive: true });
  for (const name of readdirSync('/usr/bin')) {
    if (!COMPILERS.test(name)) symlinkSync(join('/usr/bin', name), join(into, name));
  }
  rmSync(join(into, 'node'), { force: true });
  symlinkSync(node, join(into, 'node'));
  return into;
}

/** Package folders and bytes under a node_modules, nested ones included (du's count, not apparent sizes). */
function weigh(modules: string): { packages: number; bytes: number } {
  let packages = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === '.bin') continue;
      const at = join(dir, e.name);
      if (e.name.startsWith('@')) walk(at);
      else {
        packages++;
        if (existsSync(join(at, 'node_modules'))) walk(join(at, 'node_modules'));
      }
    }
  };
  if (existsSync(modules)) walk(modules);
  const du = spawnSync('du', ['-sb', modules], { encoding: 'utf8' });
  return { packages, bytes: Number(du.stdout.split('\t')[0]) || 0 };
}

/** npm's own CLI script (what the `npm` on the PATH links to), run by the Node.js under test (its build has no npm of its own). */
function npmCli(): string {
  return realpathSync(spawnSync('which', ['npm'], { encoding: 'utf8' }).stdout.trim());
}

/** The package packed as `npm pack` publishes it (its prepack builds it). */
export function packTarball(into: string): string {
  const r = spawnSync('npm', ['pack', '--silent', '--pack-destination', into], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  return join(into, r.stdout.trim().split('\n').pop()!);
}

/** The three installs of the packed package on the Node.js binary `node`. */
export function installRuns(node: string, tarball: string): InstallRun[] {
  const work = mkdtempSync(join(tmpdir(), 'cae-install-'));
  const bare = pathWithoutCompiler(node, join(work, 'bin'));
  const withCompiler = `${dirname(node)}:/usr/bin:/bin`;
  // The official build's folder holds include/node: node-gyp's headers, with no download.
  const nodedir = dirname(dirname(node));
  const cli = npmCli();
  const run = (label: string, path: string, extra: string[]): InstallRun => {
    const dir = join(work, label.replace(/\W+/g, '-'));
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const env = {
      ...process.env,
      PATH: path,
      npm_config_nodedir: nodedir,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
    const t = performance.now();
    const r = spawnSync(node, [cli, 'install', '--omit=dev', ...extra, tarball], { cwd: dir, env, encoding: 'utf8' });
    const seconds = (performance.now() - t) / 1000;
    const modules = join(dir, 'node_modules');
    const main = join(modules, 'coding-agent-exporter', 'dist', 'main.js');
    const d = spawnSync(node, [main, 'doctor', '--json'], { cwd: dir, env: { ...env, HOME: dir }, encoding: 'utf8' });
    let sqlite = `doctor exited ${d.status}`;
    try {
      const s = (JSON.parse(d.stdout) as { sqlite: { engine?: string; error?: string } }).sqlite;
      sqlite = s.engine ?? `cannot be loaded: ${s.error}`;
    } catch {
      /* the exit status says it */
    }
    return {
      label,
      ok: r.status === 0,
      seconds,
      ...weigh(modules),
      betterSqlite3: existsSync(join(modules, 'better-sqlite3')),
      sqlite,
    };
  };
  try {
    return [
      run('no compiler on the PATH', bare, []),
      run('a compiler on the PATH', withCompiler, []),
      run('--omit=optional, no compiler', bare, ['--omit=optional']),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
