// The README as a newcomer reads it: short, every harness on it one line, every link to a file that
// is there, every command it shows one the command line takes; and the docs' generated tables current.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { configTable } from '../../src/docs.js';
import { HARNESSES } from '../../src/session/vocabulary.js';
import { readmeCommands } from '../helpers/readme.js';

const ROOT = resolve(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const README = read('README.md');
const markdown = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdown(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );

/** The ids in the second column of a table's rows whose first column is a harness's name (not the header's). */
const harnessRows = (text: string) =>
  text
    .split('\n')
    .map((l) => /^\| [^|]+ \| `([a-z0-9-]+)` \|/.exec(l)?.[1])
    .filter((id): id is string => id !== undefined && id !== 'harness');

describe('the README', () => {
  it('is short: under 25 KB', () => {
    expect(Buffer.byteLength(README)).toBeLessThan(25_000);
  });

  it('lists every harness read, one line each', () => {
    expect(harnessRows(README).sort()).toEqual([...HARNESSES].sort());
  });

  it('links only to files that are there', () => {
    for (const file of ['README.md', ...markdown('docs'), 'bench/README.md']) {
      const links = [...read(file).matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)].map((m) => m[1]!);
      for (const link of links) expect(existsSync(resolve(ROOT, dirname(file), link)), `${file}: ${link}`).toBe(true);
    }
  });

  it('says the Node.js versions .ci/run runs the suite on, no LTS line between the oldest and the newest left out', () => {
    // The machine's Node.js (the oldest the package takes), then .ci/run's loop, each a pinned version.
    const pinned = /for version in ([\d. ]+); do/.exec(read('.ci/run'))![1]!.trim().split(/\s+/);
    const oldest = Number(
      />=(\d+)/.exec((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node)![1],
    );
    const majors = [oldest, ...pinned.map((v) => Number(v.split('.')[0]))];
    // Node.js's LTS lines are its even majors.
    for (let major = oldest; major <= Math.max(...majors); major += 2)
      expect(majors, `Node.js ${major}`).toContain(major);
    expect(README).toContain(`tested on ${majors.slice(0, -1).join(', ')} and ${majors.at(-1)}`);
    for (const version of pinned) expect(read('docs/install.md'), version).toContain(`tested: ${version}`);
  });

  it('shows only command lines the command line takes (test/e2e/readme.test.ts runs them)', () => {
    const shown = readmeCommands(README);
    expect(shown.length).toBeGreaterThan(8);
    for (const args of shown) expect(() => parseArgs(args), args.join(' ')).not.toThrow();
  });
});

describe('docs/harnesses.md', () => {
  const doc = read('docs/harnesses.md');

  it('has a row for every harness read', () => {
    expect(harnessRows(doc).sort()).toEqual([...HARNESSES].sort());
  });

  it('has a section naming every harness read (a `## ` heading with its name in the table)', () => {
    const names = new Map(
      doc
        .split('\n')
        .map((l) => /^\| ([^|]+?) \| `([a-z0-9-]+)` \|/.exec(l))
        .filter((m) => m !== null)
        .map((m) => [m[2]!, m[1]!]),
    );
    const headings = doc.split('\n').filter((l) => l.startsWith('## '));
    const named = (name: string) => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
    expect(HARNESSES.filter((id) => !headings.some((h) => named(names.get(id) ?? id).test(h)))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('has the configuration table of the schema (run `npm run docs` after a change)', () => {
    expect(read('docs/configuration.md')).toContain(configTable());
  });
});
