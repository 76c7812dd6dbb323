// The macOS process table (ps, and lsof for a few pids), run here against Linux's ps and lsof,
// which take the same options (scripts/test-deps.mjs installs them: this test never skips).

import { spawn } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { psTable } from '../../src/process/table.js';
import { tempDir, until } from '../helpers/run.js';

describe('ps table', () => {
  const dir = tempDir();
  const held = join(dir, 'held.jsonl');
  writeFileSync(held, '');
  symlinkSync(process.execPath, join(dir, 'codex'));
  const child = spawn(
    join(dir, 'codex'),
    ['-e', `require('fs').openSync(${JSON.stringify(held)}, 'r'); setInterval(() => {}, 1000)`],
    { cwd: dir, stdio: 'ignore' },
  );
  afterAll(() => {
    child.kill('SIGKILL');
  });

  it("lists the user's processes with their parent, start, CPU and memory; lsof gives the working folder and open files", async () => {
    const table = psTable();
    // Once the child runs its script: it holds the file open.
    await until(
      async () => (table.openFiles(child.pid!).includes(held) ? true : undefined),
      30_000,
      'the child holding its file',
      50,
    );
    const first = table.list();
    const me = first.find((p) => p.pid === child.pid)!;
    expect(me.ppid).toBe(process.pid);
    expect(me.argv.slice(0, 2)).toEqual([join(dir, 'codex'), '-e']);
    expect(Math.abs(me.startedAt - Date.now())).toBeLessThan(60_000);
    // The start is the same at every scan: with the pid, the process's identity.
    expect(table.list().find((p) => p.pid === child.pid)!.startTicks).toBe(me.startTicks);
    expect(table.residentBytes(child.pid!)).toBeGreaterThan(1 << 20);
    expect(table.cwd(child.pid!)).toBe(dir);
    expect(table.openFiles(child.pid!)).toContain(held);
    expect(table.environment).toBe(false);
  });
});
