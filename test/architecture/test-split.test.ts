// `npm run test:unit` runs every test but the end-to-end ones (vitest.config.ts's E2E): none of
// those may start the built binary, read the build, or start a program `npm test` installs, or
// the fast loop would need a build and those programs after all.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { E2E } from '../../vitest.config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** This file, whose examples below would count against it. */
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** Whether an E2E entry (a file, or a folder ending in `/**`) takes in a file. */
const covers = (entry: string, file: string) =>
  entry.endsWith('/**') ? file.startsWith(entry.slice(0, -2)) : file === entry;

/** The names a file imports from a module whose path ends with `module`. */
function importedFrom(source: string, module: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    if (!m[2]!.endsWith(module)) continue;
    out.push(
      ...m[1]!
        .split(',')
        .map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]!,
        )
        .filter(Boolean),
    );
  }
  return out;
}

/** Why a test is end-to-end, if it is. */
function e2eReasons(source: string): string[] {
  const reasons = importedFrom(source, 'helpers/run.js')
    .filter((n) => ['run', 'listening', 'MAIN'].includes(n))
    .map((n) => `starts dist/main.js (${n})`);
  if (importedFrom(source, 'helpers/processes.js').includes('Processes')) reasons.push('starts servers (Processes)');
  if (
    importedFrom(source, 'deploy/lib.js').includes('promtool') ||
    importedFrom(source, './lib.js').includes('promtool')
  )
    reasons.push('runs promtool');
  if (/\.\.\/dist\//.test(source)) reasons.push('reads the build (dist/)');
  const program =
    /\b(?:spawn|spawnSync|execFile|execFileSync)\(\s*['"`](promtool|prometheus|victoria-metrics|vmalert|openssl|tmux|chromium)['"`]/.exec(
      source,
    );
  if (program) reasons.push(`runs ${program[1]}`);
  return reasons;
}

describe('the unit tests', () => {
  it('start no built binary and no program `npm test` installs', () => {
    const offenders = testFiles(join(ROOT, 'test'))
      .filter((f) => f !== SELF && !E2E.some((e) => covers(e, f)))
      .map((f) => [f, e2eReasons(readFileSync(join(ROOT, f), 'utf8'))] as const)
      .filter(([, why]) => why.length > 0);
    expect(offenders).toEqual([]);
  });

  it('are told apart by what they start, not by their folder', () => {
    expect(e2eReasons("import { envFor, run, tempDir } from '../helpers/run.js';")).toEqual([
      'starts dist/main.js (run)',
    ]);
    expect(e2eReasons("import { tempDir } from '../helpers/run.js';")).toEqual([]);
    expect(e2eReasons("const r = spawnSync('promtool', ['check', 'metrics']);")).toEqual(['runs promtool']);
    expect(e2eReasons("await import(new URL('../../dist/readers/sqlite.js', import.meta.url).href)")).toEqual([
      'reads the build (dist/)',
    ]);
    expect(e2eReasons("expect(pkg.bin.x).toBe('dist/main.js');")).toEqual([]);
  });

  it('leave out end-to-end tests that exist (no entry outlives its file)', () => {
    const files = testFiles(join(ROOT, 'test'));
    expect(E2E.filter((e) => !files.some((f) => covers(e, f)))).toEqual([]);
  });
});
