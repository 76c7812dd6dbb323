// What `serve` loads before it answers: every module loaded is start-up time of a warm restart.
// A CommonJS package is required, not imported (Node's import of one first scans its source for
// named exports), and what only some homes need is loaded where it is first needed.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinsOf, importGraph, packagesOf, reachable } from './imports.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = `${ROOT}src/`;

/** What main imports for `serve` (its own dynamic imports, serve's runner's, and the agent's server), with all they load statically. */
function loadedByServe(): string[] {
  const main = readFileSync(`${SRC}main.ts`, 'utf8');
  const run = readFileSync(`${SRC}cli/run.ts`, 'utf8');
  const exporter = readFileSync(`${SRC}exporter.ts`, 'utf8');
  const entries = [
    'main.ts',
    'config/load.ts',
    'log.ts',
    'cli/args.ts',
    'cli/run.ts',
    'state/db.ts',
    'version.ts',
    'exporter.ts',
    'heap.ts',
  ];
  for (const e of entries.slice(1))
    expect(
      `${main}${exporter}`.includes(`'./${e.replace(/\.ts$/, '.js')}'`) ||
        run.includes(`'../${e.replace(/\.ts$/, '.js')}'`),
      e,
    ).toBe(true);
  expect(exporter).toContain("import('./http/server.js')");
  return [...reachable(importGraph(SRC, { dynamic: false }), [...entries, 'http/server.ts'])].sort();
}

/** Whether a package is CommonJS for an `import`: no `"type": "module"`, no `import` condition. */
function commonJs(spec: string): boolean {
  const name = spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
  const pkg = JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as {
    type?: string;
    exports?: unknown;
  };
  return pkg.type !== 'module' && !JSON.stringify(pkg.exports ?? {}).includes('"import"');
}

describe('what serve loads before it answers', () => {
  const loaded = loadedByServe();

  it('reaches the registry, where each harness looks, and the state database (the checks below would pass on a graph that found nothing)', () => {
    expect(loaded).toContain('readers/openclaw/where.ts');
    expect(loaded).toContain('state/db.ts');
    expect(commonJs('better-sqlite3')).toBe(true);
    expect(commonJs('bcryptjs')).toBe(false);
  });

  it('imports no CommonJS package: each is required', () => {
    expect(
      loaded.flatMap((m) =>
        packagesOf(SRC, m)
          .filter(commonJs)
          .map((p) => `${m} → ${p}`),
      ),
    ).toEqual([]);
  });

  it("loads no reader's parser: the registry imports a harness's reader once a root of it is found", () => {
    const folders = readdirSync(`${SRC}readers`, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `readers/${e.name}/`);
    expect(folders.length).toBeGreaterThan(20);
    expect(loaded.filter((m) => folders.some((f) => m.startsWith(f)) && !/\/(where|paths)\.ts$/.test(m))).toEqual([]);
  });

  it("loads none of Node's modules for HTTPS, threads or commands: they are loaded where first needed (TLS configured, a first read, a password, macOS)", () => {
    expect(loaded.flatMap((m) => builtinsOf(SRC, m).map((b) => `${m} → ${b}`))).toContain('http/server.ts → node:http');
    expect(
      loaded.flatMap((m) =>
        builtinsOf(SRC, m)
          .filter((b) => /^node:(https|tls|worker_threads|child_process)$/.test(b))
          .map((b) => `${m} → ${b}`),
      ),
    ).toEqual([]);
  });

  it("loads no zstd decompressor: OpenClaw's reader requires it on the first compressed event", () => {
    expect(loaded.filter((m) => packagesOf(SRC, m).includes('fzstd'))).toEqual([]);
  });
});
