// The exporter reading the hook spool: what was appended since the last read, across the hook's
// rotation, a torn last line only once it is whole, and everything again after a restart; a spool
// moved aside read to the seal the reader puts on it; nothing but regular files of its own.

import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookSource, SpoolReader } from '../../src/hooks/source.js';
import { hookMap } from '../helpers/hooks.js';
import { tempDir } from '../helpers/run.js';

const line = (session: string, phase: string, at: number) =>
  `${JSON.stringify({ harness: 'codex', session, event: 'x', phase, at })}\n`;

describe('the hook spool source', () => {
  it('reads appended lines, follows a rotation, waits for a torn line, and starts over after a restart', () => {
    const dir = tempDir();
    const spool = join(dir, 'hooks.jsonl');
    const target = hookMap();
    const { hooks } = target;
    const source = new HookSource(dir, target);
    expect(source.read()).toBe(false); // no spool yet: no hooks set up
    appendFileSync(spool, line('a', 'prompt', 1) + line('b', 'tool', 2));
    expect(source.read()).toBe(true);
    expect(source.read()).toBe(false);
    // Written after the last read, then moved aside by the hook; the new spool's first line.
    appendFileSync(spool, line('a', 'stop', 3));
    renameSync(spool, `${spool}.1`);
    appendFileSync(spool, `${line('b', 'permission', 4)}{"harness":"codex","sess`);
    expect(source.read()).toBe(true);
    expect(Object.fromEntries([...hooks].map(([k, v]) => [k, v.phase]))).toEqual({
      'codex/a': 'stop',
      'codex/b': 'permission',
    });
    appendFileSync(spool, 'ion":"c","event":"x","phase":"end","at":5}\nnot json\n');
    expect(source.read()).toBe(true);
    expect(hooks.get('codex/c')).toEqual({ phase: 'end', at: 5 });
    const restarted = hookMap();
    new HookSource(dir, restarted).read();
    expect(restarted.hooks).toEqual(hooks);
  });

  it('seals a spool moved aside before reading it to the end: a line written after the seal is not read (its hook writes it again), and the file is kept until the next one', () => {
    const dir = tempDir();
    const spool = join(dir, 'hooks.jsonl');
    const read: string[] = [];
    const reader = new SpoolReader(dir);
    appendFileSync(spool, line('a', 'prompt', 1));
    reader.read((r) => read.push(r.session));
    appendFileSync(spool, line('b', 'tool', 2));
    renameSync(spool, `${spool}.1765000000000-42-1`);
    appendFileSync(spool, line('c', 'tool', 3));
    reader.read((r) => read.push(r.session));
    expect(read).toEqual(['a', 'b', 'c']);
    expect(readdirSync(dir).sort()).toEqual(['hooks.jsonl', 'hooks.jsonl.0']);
    const kept = join(dir, 'hooks.jsonl.0');
    expect(readFileSync(kept, 'utf8')).toBe(`${line('a', 'prompt', 1)}${line('b', 'tool', 2)}\n{"sealed":true}\n`);
    // A hook that opened it before it was moved writes after the seal.
    appendFileSync(kept, line('late', 'tool', 4));
    renameSync(spool, `${spool}.1765000000001-42-2`);
    reader.read((r) => read.push(r.session));
    expect(read).toEqual(['a', 'b', 'c']);
    expect(readdirSync(dir).sort()).toEqual(['hooks.jsonl.0']);
    // A restart reads the kept spool again, to its seal.
    const again: string[] = [];
    new SpoolReader(dir).read((r) => again.push(r.session));
    expect(again).toEqual(['c']);
  });

  it('a viewer beside the exporter (top) leaves a moved spool as it is, and still reads each line once', () => {
    const dir = tempDir();
    const spool = join(dir, 'hooks.jsonl');
    const moved = `${spool}.1765000000000-42-1`;
    const read: string[] = [];
    const viewer = new SpoolReader(dir, { putAway: false });
    appendFileSync(spool, line('a', 'prompt', 1));
    viewer.read((r) => read.push(r.session));
    renameSync(spool, moved);
    appendFileSync(moved, line('b', 'tool', 2));
    viewer.read((r) => read.push(r.session));
    appendFileSync(moved, line('late', 'tool', 3));
    viewer.read((r) => read.push(r.session));
    viewer.read((r) => read.push(r.session));
    expect(read).toEqual(['a', 'b', 'late']);
    expect(readdirSync(dir)).toEqual(['hooks.jsonl.1765000000000-42-1']);
    expect(readFileSync(moved, 'utf8')).toBe(line('a', 'prompt', 1) + line('b', 'tool', 2) + line('late', 'tool', 3));
  });

  it('opens no symbolic link (reads nothing through it, seals nothing where it points) and waits for no FIFO', () => {
    const dir = tempDir();
    const elsewhere = join(tempDir(), 'elsewhere.jsonl');
    writeFileSync(elsewhere, line('a', 'prompt', 1));
    symlinkSync(elsewhere, join(dir, 'hooks.jsonl'));
    symlinkSync(elsewhere, join(dir, 'hooks.jsonl.1'));
    const read: string[] = [];
    new SpoolReader(dir).read((r) => read.push(r.session));
    expect(read).toEqual([]);
    expect(readFileSync(elsewhere, 'utf8')).toBe(line('a', 'prompt', 1));
    const fifo = tempDir();
    execFileSync('mkfifo', [join(fifo, 'hooks.jsonl')]);
    execFileSync('mkfifo', [join(fifo, 'hooks.jsonl.1')]);
    new SpoolReader(fifo).read((r) => read.push(r.session));
    expect(read).toEqual([]);
    expect(existsSync(join(fifo, 'hooks.jsonl.0'))).toBe(false);
  });
});
