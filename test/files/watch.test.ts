import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../src/files/watch.js';
import { tempDir, until } from '../helpers/run.js';

const open: FolderWatcher[] = [];
afterEach(() => open.splice(0).forEach((w) => w.close()));

/** A watcher of `dir` to `depth`, and the paths it was told of, in order. */
function watching(dir: string, depth: number): string[] {
  const seen: string[] = [];
  const w = new FolderWatcher(
    depth,
    (path) => seen.push(path),
    (e) => seen.push(`failed: ${e.message}`),
  );
  open.push(w);
  w.add([dir]);
  return seen;
}

const told = (seen: string[], path: string) =>
  until(async (saw) => (saw(seen).includes(path) ? true : undefined), 10_000, `a change of ${path}`);

describe('FolderWatcher', () => {
  it('tells of each change to a file, a second one at once after the first too', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, '');
    const seen = watching(dir, 0);
    for (let i = 0; i < 3; i++) {
      seen.length = 0;
      appendFileSync(file, `${i}\n`);
      await told(seen, file);
    }
  });

  it('watches a folder made below a watched one, to its depth and no deeper', async () => {
    const dir = tempDir();
    const seen = watching(dir, 1);
    mkdirSync(join(dir, 'project'));
    await told(seen, join(dir, 'project'));
    writeFileSync(join(dir, 'project', 's.jsonl'), 'x\n');
    await told(seen, join(dir, 'project', 's.jsonl'));
    mkdirSync(join(dir, 'project', 'deeper'));
    await told(seen, join(dir, 'project', 'deeper'));
    writeFileSync(join(dir, 'project', 'deeper', 'x.jsonl'), 'x\n');
    // A later change above it comes after: had the deeper one been told, it would be seen first.
    writeFileSync(join(dir, 'project', 'after.jsonl'), 'x\n');
    await told(seen, join(dir, 'project', 'after.jsonl'));
    expect(seen).not.toContain(join(dir, 'project', 'deeper', 'x.jsonl'));
  });

  it('lets a removed folder go, and watches one made again under its name', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'project'));
    const seen = watching(dir, 1);
    rmSync(join(dir, 'project'), { recursive: true });
    await told(seen, join(dir, 'project'));
    seen.length = 0;
    mkdirSync(join(dir, 'project'));
    await told(seen, join(dir, 'project'));
    writeFileSync(join(dir, 'project', 's.jsonl'), 'x\n');
    await told(seen, join(dir, 'project', 's.jsonl'));
  });

  it('skips a folder that is not there, and stops telling once unwatched', async () => {
    const dir = tempDir();
    const seen = watching(join(dir, 'missing'), 0);
    const w = new FolderWatcher(
      0,
      (path) => seen.push(path),
      () => {},
    );
    open.push(w);
    w.add([dir]);
    w.unwatch([dir]);
    writeFileSync(join(dir, 'a.jsonl'), '');
    const probe = watching(dir, 0);
    writeFileSync(join(dir, 'b.jsonl'), '');
    await told(probe, join(dir, 'b.jsonl'));
    expect(seen).toEqual([]);
  });
});
