// Installable as users install such tools: `npm pack` gives a tarball without tests, bench code or
// source maps; installed globally into a temporary prefix it answers --version, `once` on a
// fixture home and `serve`; `npx` runs it too.
//
// npm installs the dependencies from its cache where it has them (--prefer-offline; `npm ci`
// filled it). better-sqlite3 would download or compile its native module in its install script,
// which takes minutes without a prebuilt binary: scripts are skipped and the module this checkout
// built is copied in, the same file for the same pinned version.

import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNBOOK_BASE, ROOT } from '../deploy/lib.js';
import { grpcReceiver, pushesOf } from '../helpers/otlp-receiver.js';
import { envFor, FIXTURES, listening, MAIN, sum, tempDir, until } from '../helpers/run.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
  peerDependencies: Record<string, string>;
};
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const HOME = join(FIXTURES, 'home');
let tarball: string;
let files: string[];
const children: ChildProcess[] = [];

beforeAll(() => {
  const out = tempDir('cae-pack-');
  // dist/ is built by `npm test`'s pretest; --ignore-scripts skips the prepack build.
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  tarball = join(out, name);
  files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''));
}, 60_000);

afterAll(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

/**
 * npm with the shared cache (for the dependencies) but no lasting trace outside `dir`. Run without
 * blocking the test worker: an install takes most of a minute on a busy machine, and a worker
 * whose event loop stays blocked that long loses vitest's calls to its main process.
 */
function npm(
  args: string[],
  dir: string,
  extra: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // npx keeps what it installs under <cache>/_npx: a cache folder of our own whose _cacache is npm's.
  const cache = join(dir, 'npm-cache');
  mkdirSync(cache, { recursive: true });
  symlinkSync(join(NPM_CACHE, '_cacache'), join(cache, '_cacache'));
  return new Promise((resolve) => {
    const child = spawn(args[0]!, args.slice(1), {
      timeout: 180_000,
      env: {
        ...process.env,
        npm_config_cache: cache,
        npm_config_ignore_scripts: 'true',
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        ...extra,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => (stderr += String(e)));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function useBuiltSqlite(packageDir: string) {
  const release = join(packageDir, 'node_modules/better-sqlite3/build/Release');
  mkdirSync(release, { recursive: true });
  copyFileSync(
    join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    join(release, 'better_sqlite3.node'),
  );
}

describe('the npm package', () => {
  it('holds the build, the deploy files and the docs, without tests, bench code or source maps', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'config.example.json',
        'dist/main.js',
        'dist/pricing/genai-prices.json',
        'deploy/grafana/dashboards/team.json',
        'deploy/team/prometheus-agent.yml',
        'docs/runbook.md',
      ]),
    );
    expect(
      files.filter((f) => /\.map$|^(test|src|bench|scripts)\/|^dist\/(bench|scripts)\/|\.test\.|\.ts$/.test(f)),
    ).toEqual([]);
    // The entry point and the two thread scripts are bundled (scripts/bundle.mjs), split where modules
    // load on demand, and the page's number formats built on their own; the modules tsc built beside them are not shipped.
    expect(files.filter((f) => f.startsWith('dist/chunks/')).length).toBeGreaterThan(10);
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/chunks/')).sort()).toEqual([
      'dist/collectors/read-worker.js',
      'dist/http/bcrypt-worker.js',
      'dist/main.js',
      'dist/pricing/genai-prices.json',
      'dist/web/format.js',
    ]);
  });

  it('names the repository its runbook links point to', () => {
    const repo = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/blob\//.exec(RUNBOOK_BASE)![1]!;
    expect(pkg.repository.url).toBe(`git+https://github.com/${repo}.git`);
    expect(pkg.homepage).toBe(`https://github.com/${repo}#readme`);
    expect(pkg.bugs.url).toBe(`https://github.com/${repo}/issues`);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## ${pkg.version}`);
  });

  it('installs globally and runs --version, once and serve', async () => {
    const dir = tempDir('cae-global-');
    const prefix = join(dir, 'prefix');
    const r = await npm(['npm', 'install', '--global', '--prefix', prefix, tarball], dir);
    expect(r.status, r.stderr).toBe(0);
    useBuiltSqlite(join(prefix, 'lib/node_modules', pkg.name));
    const bin = join(prefix, 'bin', 'coding-agent-exporter');

    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);

    const once = (cmd: string, args: string[]) =>
      execFileSync(cmd, [...args, 'once', '--state-dir', tempDir()], { env: envFor(HOME), encoding: 'utf8' });
    const installed = once(bin, []);
    expect(sum(installed, 'coding_agent_tokens_total')).toBeGreaterThan(0);
    expect(sum(installed, 'coding_agent_tokens_total')).toBe(
      sum(once(process.execPath, [MAIN]), 'coding_agent_tokens_total'),
    );

    const serve = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()], envFor(HOME), bin);
    children.push(serve.child);
    const url = await serve.url;
    const text = await until(
      async () => {
        const t = await (await fetch(`${url}/metrics`)).text();
        return sum(t, 'coding_agent_tokens_total') > 0 ? t : undefined;
      },
      20_000,
      '/metrics',
    );
    expect(text).toContain(`coding_agent_exporter_build_info{version="${pkg.version}"`);
  }, 240_000);

  it("installs without OpenTelemetry's gRPC exporter; a gRPC push names the command that adds it, and pushes once it is added", async () => {
    const dir = tempDir('cae-grpc-');
    const prefix = join(dir, 'prefix');
    const r = await npm(['npm', 'install', '--global', '--prefix', prefix, tarball], dir);
    expect(r.status, r.stderr).toBe(0);
    const installed = join(prefix, 'lib/node_modules', pkg.name);
    useBuiltSqlite(installed);
    expect(existsSync(join(installed, 'node_modules/@grpc/grpc-js'))).toBe(false);
    const bin = join(prefix, 'bin', 'coding-agent-exporter');
    const receiver = await grpcReceiver();
    try {
      const env = envFor(HOME, {
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc',
        OTEL_METRIC_EXPORT_INTERVAL: '500',
      });
      const args = ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()];
      const exporter = '@opentelemetry/exporter-metrics-otlp-grpc';
      const install = `${exporter}@${pkg.peerDependencies[exporter]}`;
      const refused = spawnSync(bin, args, { env, encoding: 'utf8', timeout: 60_000 });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(`npm install -g ${install}`);

      const added = await npm(['npm', 'install', '--global', '--prefix', prefix, install], tempDir('cae-grpc-add-'));
      expect(added.status, added.stderr).toBe(0);
      const serve = listening(args, env, bin);
      children.push(serve.child);
      const [push] = await pushesOf(receiver, 1);
      expect(push!.headers['content-type']).toBe('application/grpc');
    } finally {
      await receiver.close();
    }
  }, 240_000);

  it('runs with npx', async () => {
    const dir = tempDir('cae-npx-');
    const r = await npm(['npx', '--yes', `--package=${tarball}`, 'coding-agent-exporter', '--version'], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  }, 240_000);
});
