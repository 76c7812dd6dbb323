// The /proc table: each process's start placed to the hundredth of a second, not to the second
// `btime` gives (a tool started just after a hook's event must not seem to start before it).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noTableNote, platformTable, procTable } from '../../src/process/table.js';
import { BOOT_SECONDS, fakeProc } from '../helpers/fake-proc.js';

/** A table of one process started 10 s after boot, the machine booted 0.63 s after `btime`'s second, its uptime read `agoMs` ago. */
function startOf(agoMs: number | undefined): number {
  const proc = fakeProc();
  const boot = BOOT_SECONDS * 1000 + 630;
  if (agoMs !== undefined)
    writeFileSync(join(proc.root, 'uptime'), `${((Date.now() - agoMs - boot) / 1000).toFixed(2)} 12.34\n`);
  proc.add(500, { argv: ['sleep', '30'], startTicks: 1000 });
  return procTable(proc.root)
    .list()
    .find((p) => p.pid === 500)!.startedAt;
}

describe('the /proc table', () => {
  it('places a start by the uptime, to the hundredth of a second', () => {
    expect(Math.abs(startOf(0) - (BOOT_SECONDS * 1000 + 10_630))).toBeLessThanOrEqual(20);
  });

  it('by btime alone where the uptime is missing or from another moment (a copy of /proc)', () => {
    expect(startOf(undefined)).toBe(BOOT_SECONDS * 1000 + 10_000);
    expect(startOf(3600_000)).toBe(BOOT_SECONDS * 1000 + 10_000);
  });
});

describe("the platform's table", () => {
  it('is none on Windows, even where a /proc-like folder is there: statuses from files and hooks alone, said', () => {
    const proc = fakeProc();
    proc.add(500, { argv: ['sleep', '30'] });
    expect(platformTable(proc.root, 'linux')).toBeDefined();
    expect(platformTable(proc.root, 'win32')).toBeUndefined();
    expect(noTableNote('win32')).toBe(
      'no process table on this platform (win32): statuses come from session files and hooks alone',
    );
  });
});
