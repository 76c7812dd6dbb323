import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
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
    expect(listDir(dir).map((e) => [e.name, e.isFile, e.isDirectory]).sort()).toEqual([['a.jsonl', true, false], ['sub', false, true]]);
    writeFileSync(join(dir, 'b.jsonl'), ''); // changes the folder's mtime
    expect(listDir(dir).map((e) => e.name).sort()).toEqual(['a.jsonl', 'b.jsonl', 'sub']);
    expect(listDir(join(dir, 'missing'))).toEqual([]);
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
