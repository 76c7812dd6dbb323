// The macOS process table against what BSD `ps` and `lsof` print (test/fixtures/macos, written
// from their manuals): the real programs here are Linux's, which print the same columns otherwise.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessOf } from '../../src/process/harnesses.js';
import { cpuSeconds, PS_ARGS, psTable, runInCLocale, type Run } from '../../src/process/table.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const fixture = (name: string) => readFileSync(join(FIXTURES, 'macos', name), 'utf8');

describe('ps table on macOS output', () => {
  const home = tempDir();
  const programs = {
    claude: join(home, 'Library', 'Application Support', 'Claude', 'claude-code', '2.1.3', 'claude'),
    electron: join(home, 'Applications', 'Visual Studio Code.app', 'Contents', 'MacOS', 'Electron'),
    helper: join(
      home,
      'Applications',
      'Visual Studio Code.app',
      'Contents',
      'Frameworks',
      'Code Helper (Plugin).app',
      'Contents',
      'MacOS',
      'Code Helper (Plugin)',
    ),
  };
  for (const p of Object.values(programs)) {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, '');
  }
  const asked: string[][] = [];
  const run: Run = (cmd, args) => {
    asked.push([cmd, ...args]);
    if (cmd === 'ps') return fixture('ps.txt').replaceAll('__HOME__', home);
    return args.includes('cwd') ? fixture('lsof-cwd.txt') : '';
  };
  const table = psTable(run);
  const procs = table.list();
  const byPid = new Map(procs.map((p) => [p.pid, p]));

  it('asks ps for the columns it parses', () => {
    expect(asked[0]).toEqual(['ps', ...PS_ARGS]);
  });

  it('reads every state letter but leaves out zombies', () => {
    expect(procs.map((p) => p.pid)).toEqual([412, 588, 601, 702, 733, 745, 760, 790]);
  });

  it("reads the parent, the memory (KiB), the start (lstart, local time) and BSD's CPU time", () => {
    const claude = byPid.get(745)!;
    expect(claude.ppid).toBe(702);
    expect(table.residentBytes(745)).toBe(402432 * 1024);
    expect(claude.startedAt).toBe(new Date(2026, 11, 7, 10, 20, 31).getTime());
    expect(claude.cpuSeconds).toBeCloseTo(41.02, 6);
    // Minutes past 59 stay minutes in BSD's form.
    expect(byPid.get(601)!.cpuSeconds).toBeCloseTo(125 * 60 + 3.07, 6);
  });

  it('keeps a program path with spaces whole, and splits the arguments at spaces', () => {
    expect(byPid.get(745)!.argv).toEqual([programs.claude, '--resume', '0b5e3c1e-8c4d-4c5e-9a51-3f0d6d1c2a77']);
    expect(byPid.get(588)!.argv).toEqual([programs.electron]);
    expect(byPid.get(601)!.argv).toEqual([
      programs.helper,
      '--type=utility',
      '--utility-sub-type=node.mojom.NodeService',
    ]);
    // A program whose path is no file here stays split; arguments are split even inside quotes
    // (ps shows no quotes: these are the prompt's own).
    expect(byPid.get(412)!.argv).toEqual(['/usr/libexec/UserEventAgent', '(Aqua)']);
    expect(byPid.get(760)!.argv).toEqual(['/opt/homebrew/bin/codex', 'exec', 'fix', 'the', 'bug', 'in', '"my', 'app"']);
    expect(byPid.get(702)!.argv).toEqual(['-zsh']);
  });

  it('tells the harnesses from those command lines', () => {
    expect(harnessOf(byPid.get(745)!.argv)).toBe('claude-code');
    expect(harnessOf(byPid.get(733)!.argv)).toBe('gemini-cli');
    expect(harnessOf(byPid.get(760)!.argv)).toBe('codex');
    expect(harnessOf(byPid.get(601)!.argv)).toBeUndefined();
  });

  it('takes the working folder, spaces and all, from lsof', () => {
    expect(table.cwd(745)).toBe('/Users/me/My Projects/app');
    expect(asked.at(-1)).toEqual(['lsof', '-a', '-p', '745', '-d', 'cwd', '-Fn']);
  });

  it('gives the same identity at every scan', () => {
    expect(table.list().find((p) => p.pid === 745)!.startTicks).toBe(byPid.get(745)!.startTicks);
  });
});

describe('cpuSeconds', () => {
  it("reads BSD's and procps's forms", () => {
    expect(cpuSeconds('0:00.52')).toBeCloseTo(0.52, 6);
    expect(cpuSeconds('125:03.07')).toBeCloseTo(7503.07, 6);
    expect(cpuSeconds('00:00:27')).toBe(27);
    expect(cpuSeconds('1-02:03:04')).toBe(86400 + 2 * 3600 + 3 * 60 + 4);
  });
});

describe('runInCLocale', () => {
  it("runs ps and lsof in the C locale (lstart and BSD's decimal point in the user's language would not parse)", () => {
    expect(runInCLocale()('sh', ['-c', 'echo "$LC_ALL"'])).toBe('C\n');
  });
});
