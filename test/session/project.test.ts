import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectNamer, repositoryRoot } from '../../src/session/project.js';
import { tempDir } from '../helpers/run.js';

describe('project label', () => {
  const root = tempDir();
  const main = join(root, 'src', 'shop');
  const wt = join(root, 'wt', 'shop-feature');
  mkdirSync(join(main, '.git', 'worktrees', 'shop-feature'), { recursive: true });
  mkdirSync(join(main, 'packages', 'api'), { recursive: true });
  mkdirSync(join(wt, 'lib'), { recursive: true });
  writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git', 'worktrees', 'shop-feature')}\n`);

  it('is the repository root, a worktree counted under its main repository', () => {
    expect(repositoryRoot(join(main, 'packages', 'api'))).toBe(main);
    expect(repositoryRoot(join(wt, 'lib'))).toBe(main);
    expect(repositoryRoot('/nonexistent/demo-app')).toBe('/nonexistent/demo-app');
  });

  it('does not read a `.git` that is not a regular file (a FIFO would block): it counts as no repository there', () => {
    const dir = join(root, 'odd', 'repo');
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, '.git')]);
    expect(repositoryRoot(dir)).toBe(dir);
  });

  it('takes an alias written by a path however the process table spells the folder: through a link, or with a trailing slash', () => {
    // The user names the folder as they reach it (a linked home); a process's working directory,
    // from the process table, is the folder's real path.
    const link = join(tempDir(), 'home');
    symlinkSync(root, link);
    const opts = (key: string) => ({ mode: 'path' as const, aliases: { [key]: 'the-shop' }, max: 9 });
    expect(new ProjectNamer(opts(join(link, 'src', 'shop'))).label(join(main, 'packages', 'api'))).toBe('the-shop');
    expect(new ProjectNamer(opts(`${main}/`)).label(main)).toBe('the-shop');
    // And the other way round: the path as written in a session file through the link.
    expect(new ProjectNamer(opts(main)).label(join(link, 'src', 'shop'))).toBe('the-shop');
  });

  it('is written by name, path, hash or not at all, with aliases', () => {
    const cwd = join(main, 'packages', 'api');
    expect(new ProjectNamer({ mode: 'name', aliases: {}, max: 9 }).label(cwd)).toBe('shop');
    expect(new ProjectNamer({ mode: 'path', aliases: {}, max: 9 }).label(cwd)).toBe(main);
    expect(new ProjectNamer({ mode: 'hash', aliases: {}, max: 9 }).label(cwd)).toMatch(/^[0-9a-f]{12}$/);
    expect(new ProjectNamer({ mode: 'none', aliases: {}, max: 9 }).label(cwd)).toBe('all');
    expect(new ProjectNamer({ mode: 'name', aliases: { shop: 'webshop' }, max: 9 }).label(cwd)).toBe('webshop');
    expect(new ProjectNamer({ mode: 'name', aliases: {}, max: 9 }).label(undefined)).toBe('unknown');
  });

  it('folds projects beyond the cap into other, keeping those exported before', () => {
    const n = new ProjectNamer({ mode: 'name', aliases: {}, max: 2 }, ['old']);
    expect(n.label('/x/a')).toBe('a');
    expect(n.folded).toBe(false);
    expect(n.label('/x/b')).toBe('other');
    expect(n.label('/x/old')).toBe('old');
    // Which folded depends on the order they came in: a report that read collectors together reads again.
    expect(n.folded).toBe(true);
  });
});
