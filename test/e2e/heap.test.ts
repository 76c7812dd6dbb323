// The exporter's V8 heap over a day: what a first read allocates (a burst of short-lived objects)
// does not leave a young generation grown to 32 MB resident, and once it is done the heap shrinks
// back towards what is live. Run in a fresh Node, the real V8.

import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const HEAP = resolve(__dirname, '../../dist/heap.js');

/** The young generation's size in MB after a burst like a first read's, `keep` set or not. */
async function youngAfterBurst(keep: boolean): Promise<number> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    ${keep ? `(await import(${JSON.stringify(HEAP)})).keepYoungGenerationSmall();` : ''}
    const kept = [];
    for (let i = 0; i < 3e6; i++) { const o = { i, s: 'line ' + i }; if (i % 10 === 0) kept.push(o); }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 1048576 + kept.length * 0));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return Number(stdout);
}

describe('the young generation of a process that stays up', () => {
  it('grows with a burst of allocations by default (what the setting is for)', async () => {
    expect(await youngAfterBurst(false)).toBeGreaterThan(8);
  });

  it('stays at its initial size (two 1 MB semi-spaces) once kept small', async () => {
    expect(await youngAfterBurst(true)).toBeLessThanOrEqual(2);
  });
});

/** V8's heap in MB (all of it, and in use) after a read's worth of objects was dropped and collected. */
async function heapAfterRead(favour: boolean): Promise<{ total: number; used: number }> {
  const script = `
    ${favour ? `(await import(${JSON.stringify(HEAP)})).favourMemory();` : ''}
    let read = [];
    for (let i = 0; i < 4e5; i++) read.push({ i, s: 'line ' + i, a: [i, i] });
    const kept = read.slice(0, 2e4);
    read = null;
    globalThis.gc();
    globalThis.gc();
    const { heapTotal, heapUsed } = process.memoryUsage();
    process.stdout.write(JSON.stringify({ total: heapTotal / 1048576, used: heapUsed / 1048576, kept: kept.length }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { total: number; used: number };
}

describe('the heap once the first read is done', () => {
  it('stays grown to what the read needed by default (what the setting is for)', async () => {
    const { total, used } = await heapAfterRead(false);
    expect(total).toBeGreaterThan(5 * used);
  });

  it('shrinks towards what is live once memory is favoured', async () => {
    const { total, used } = await heapAfterRead(true);
    expect(total).toBeLessThan(5 * used);
  });
});
