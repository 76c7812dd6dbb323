import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDir, readRegular, readText } from '../../src/files/dir.js';
import { readLines } from '../../src/readers/lines.js';
import { tempDir } from '../helpers/run.js';

describe('listDir', () => {
  it('sees entries added to a folder it listed before, recent or settled', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.jsonl'), '');
    mkdirSync(join(dir, 'sub'));
    const old = new Date(Date.now() - 60_000);
    utimesSync(dir, old, old); // settled: the listing is cached
    expect(
      listDir(dir)
        .map((e) => [e.name, e.isFile, e.isDirectory])
        .sort(),
    ).toEqual([
      ['a.jsonl', true, false],
      ['sub', false, true],
    ]);
    writeFileSync(join(dir, 'b.jsonl'), ''); // changes the folder's mtime
    expect(
      listDir(dir)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['a.jsonl', 'b.jsonl', 'sub']);
    expect(listDir(join(dir, 'missing'))).toEqual([]);
  });
});

describe('listDir and symbolic links', () => {
  it('takes a link for what it points to: a folder, a file; never a FIFO, a device, nothing, or a folder it is inside of', () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(elsewhere, 'project'));
    writeFileSync(join(elsewhere, 's.jsonl'), '');
    execFileSync('mkfifo', [join(elsewhere, 'fifo')]);
    symlinkSync(join(elsewhere, 'project'), join(dir, 'project'));
    symlinkSync(join(elsewhere, 's.jsonl'), join(dir, 's.jsonl'));
    symlinkSync(join(elsewhere, 'fifo'), join(dir, 'fifo.jsonl'));
    symlinkSync('/dev/zero', join(dir, 'zero.jsonl'));
    symlinkSync(join(elsewhere, 'missing'), join(dir, 'dangling.jsonl'));
    symlinkSync(join(dir, 'self.jsonl'), join(dir, 'self.jsonl'));
    symlinkSync(dir, join(dir, 'here'));
    symlinkSync('..', join(dir, 'up'));
    expect(
      listDir(dir)
        .map((e) => [e.name, e.isFile, e.isDirectory])
        .sort(),
    ).toEqual([
      ['dangling.jsonl', false, false],
      ['fifo.jsonl', false, false],
      ['here', false, false],
      ['project', false, true],
      ['s.jsonl', true, false],
      ['self.jsonl', false, false],
      ['up', false, false],
      ['zero.jsonl', false, false],
    ]);
  });
});

describe('reading a file a harness path names', () => {
  it('opens only regular files: a FIFO fails at once instead of blocking', () => {
    const dir = tempDir();
    const fifo = join(dir, 'x.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(readText(fifo)).toBeUndefined();
    expect(() => readRegular(fifo)).toThrow(/not a regular file/);
    expect(readLines(fifo, 0, () => undefined).error).toMatchObject({ code: 'ENOTREG' });
    expect(readText('/dev/zero')).toBeUndefined();
    writeFileSync(join(dir, 'f'), 'text');
    expect(readText(join(dir, 'f'))).toBe('text');
  });
});
