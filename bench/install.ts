// What an install weighs, offline: the package as `npm pack` would publish it, and the
// dependencies `npm install` puts beside it, found as Node resolves them in this checkout's
// node_modules (each package's own files, not those of the packages nested in it). OpenTelemetry's
// gRPC exporter is an optional peer dependency, installed apart by those who push over gRPC: what it
// adds is counted apart.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../src/files/package-root.js';

export interface Weight {
  packages: number;
  bytes: number;
}

export interface InstallFigures {
  /** The package itself: its files and their bytes unpacked. */
  pack: { files: number; bytes: number };
  dependencies: Weight;
  /** What the gRPC exporter and what it needs add to the dependencies. */
  grpc: Weight;
  /** Whether the dependencies are without it (and without gRPC). */
  grpcApart: boolean;
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** What npm installs for a package: its dependencies, optional ones, and its peers that are not optional (npm 7 on). */
function needs(m: Manifest): string[] {
  const peers = Object.keys(m.peerDependencies ?? {}).filter((p) => !m.peerDependenciesMeta?.[p]?.optional);
  return [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.optionalDependencies ?? {}), ...peers];
}

/** The folder `name` resolves to from `from`, as Node looks for it: `node_modules` here, then in each folder above. */
function resolveFrom(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const at = join(dir, 'node_modules', name);
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every package folder `names` (needed by the package in `from`) bring, themselves included. */
function tree(names: string[], from: string, into = new Set<string>()): Set<string> {
  const todo = names.map((name) => ({ name, from }));
  for (let next = todo.pop(); next; next = todo.pop()) {
    const dir = resolveFrom(next.name, next.from);
    if (!dir || into.has(dir)) continue;
    into.add(dir);
    for (const name of needs(manifest(dir))) todo.push({ name, from: dir });
  }
  return into;
}

/** The bytes of a package's own files (not those of the packages nested in its node_modules). */
function ownBytes(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) bytes += e.name === 'node_modules' ? 0 : ownBytes(path);
    else if (e.isFile()) bytes += statSync(path).size;
  }
  return bytes;
}

const weigh = (dirs: Iterable<string>): Weight => {
  const all = [...dirs];
  return { packages: all.length, bytes: all.reduce((n, d) => n + ownBytes(d), 0) };
};

export function installFigures(): InstallFigures {
  const own = manifest(PACKAGE_ROOT);
  const base = tree(Object.keys(own.dependencies ?? {}), PACKAGE_ROOT);
  const withGrpc = tree(Object.keys(own.peerDependencies ?? {}), PACKAGE_ROOT, new Set(base));
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack --dry-run failed: ${packed.stderr}`);
  const [pack] = JSON.parse(packed.stdout) as { entryCount: number; unpackedSize: number }[];
  return {
    pack: { files: pack!.entryCount, bytes: pack!.unpackedSize },
    dependencies: weigh(base),
    grpc: weigh([...withGrpc].filter((d) => !base.has(d))),
    grpcApart: ![...base].some((d) => /[\\/]@grpc[\\/]|otlp-grpc/.test(d)),
  };
}
