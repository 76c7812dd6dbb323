import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDir } from '../../src/readers/dir.js';
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
