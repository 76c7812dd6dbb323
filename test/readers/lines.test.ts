import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/readers/lines.js';
import { tempDir } from '../helpers/run.js';

function collect(path: string, offset = 0) {
  const lines: [string, number][] = [];
  const r = readLines(path, offset, (l, at) => lines.push([l.toString('utf8'), at]));
  return { lines, ...r };
}

describe('readLines', () => {
  it('gives complete lines with their offsets and leaves a half-written one', () => {
    const f = join(tempDir(), 'a.jsonl');
    writeFileSync(f, 'one\n\ntwo\nthr');
    const r = collect(f);
    expect(r.lines).toEqual([
      ['one', 0],
      ['two', 5],
    ]);
    expect(r.offset).toBe(9);
    writeFileSync(f, 'one\n\ntwo\nthree\n');
    expect(collect(f, r.offset).lines).toEqual([['three', 9]]);
  });

  it('reads lines longer than its buffer, across reads', () => {
    const f = join(tempDir(), 'b.jsonl');
    const long = 'x'.repeat(3 * 1024 * 1024 + 17);
    writeFileSync(f, `a\n${long}\nb\n`);
    const r = collect(f);
    expect(r.lines.map(([l, at]) => [l.length, at])).toEqual([
      [1, 0],
      [long.length, 2],
      [1, long.length + 3],
    ]);
    expect(r.offset).toBe(long.length + 5);
  });

  it('skips and counts a line too long to hold, and goes on after it', () => {
    const f = join(tempDir(), 'c.jsonl');
    writeFileSync(f, `a\n${'y'.repeat(17 * 1024 * 1024)}\nb\n`);
    const r = collect(f);
    expect(r.lines.map(([l]) => l)).toEqual(['a', 'b']);
    expect(r.longLines).toBe(1);
    expect(r.offset).toBe(17 * 1024 * 1024 + 5);
  });
});
