// The `project` label: the repository a session works in, named so that it is useful and bounded.
// A worktree counts under its main repository; outside a repository the working directory counts.

import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import { readText } from '../files/dir.js';
import { boundLabel, OTHER, shortHash } from './labels.js';

export interface ProjectOptions {
  /** name: the folder's name; path: its full path; hash: a short hash of the path; none: one label for all. */
  mode: 'name' | 'path' | 'hash' | 'none';
  /** Label values renamed: keys are names or paths (as `mode` would show them), values the label. */
  aliases: Record<string, string>;
  /** Distinct projects exported at most; later ones fold into `other`. */
  max: number;
}

export const UNKNOWN_PROJECT = 'unknown';
export const OTHER_PROJECT = OTHER;

/** The main repository root of `cwd`, or `cwd` itself outside a repository (or where it no longer exists). */
export function repositoryRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const git = `${dir}${dir.endsWith(sep) ? '' : sep}.git`;
    let st;
    try {
      st = statSync(git);
    } catch {
      st = undefined; // no .git here: look further up
    }
    if (st?.isDirectory()) return dir;
    // A worktree's `.git` file points into `<main>/.git/worktrees/<name>`. It is read only if it is
    // a regular file: the working directory comes from a transcript, and anything can be there.
    const text = st ? readText(git) : undefined;
    if (text !== undefined) {
      const m = /^gitdir:\s*(.+)$/m.exec(text);
      const gitdir = m ? resolve(dir, m[1]!.trim()) : undefined;
      const wt = gitdir?.lastIndexOf(`${sep}.git${sep}worktrees${sep}`) ?? -1;
      return wt >= 0 ? gitdir!.slice(0, wt) : dir;
    }
    if (dirname(dir) === dir) return cwd;
  }
}

/**
 * One spelling of a Windows folder: without the `\\?\` long-path prefix (which Rust's canonicalize
 * writes, so Codex records it) and with its drive letter in capitals (VS Code writes `c:\`), so
 * that `hash` and `path` modes give a folder one label however a harness wrote it. A path that is
 * not a Windows one (every path on Linux and macOS) is returned as it is.
 */
export function windowsFolder(path: string): string {
  const plain = path.startsWith('\\\\?\\UNC\\')
    ? `\\\\${path.slice(8)}`
    : path.startsWith('\\\\?\\')
      ? path.slice(4)
      : path;
  return /^[a-z]:\\/.test(plain) ? plain[0]!.toUpperCase() + plain.slice(1) : plain;
}

/** A folder's real path (links followed, no trailing slash), or the path as given where it does not exist here. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export class ProjectNamer {
  private readonly admitted: Set<string>;
  private readonly cache = new Map<string, string>();
  /** Whether a project was folded into `other` (past `max`): which ones are depends on the order they came in. */
  folded = false;
  /**
   * Aliases written by a path, by the folder's real path: a process's working directory (from the
   * process table) is always the real path, while the user, and a session file, may name the
   * folder through a link or with a trailing slash.
   */
  private readonly aliasByRealPath: Map<string, string>;

  /** `known`: labels already exported (they keep their place under the cap across restarts). */
  constructor(
    private readonly opts: ProjectOptions,
    known: Iterable<string> = [],
  ) {
    this.admitted = new Set([...known].filter((p) => p !== OTHER_PROJECT && p !== UNKNOWN_PROJECT));
    this.aliasByRealPath = new Map(
      Object.entries(opts.aliases)
        .filter(([key]) => isAbsolute(key))
        .map(([key, label]) => [realPath(key), label]),
    );
  }

  label(cwd: string | undefined): string {
    if (!cwd || !isAbsolute(cwd)) return UNKNOWN_PROJECT;
    let label = this.cache.get(cwd);
    if (label === undefined) {
      label = this.admit(boundLabel(this.name(repositoryRoot(windowsFolder(cwd)))));
      this.cache.set(cwd, label);
    }
    return label;
  }

  private name(root: string): string {
    const { mode, aliases } = this.opts;
    const alias =
      aliases[root] ??
      aliases[basename(root)] ??
      (this.aliasByRealPath.size > 0 ? this.aliasByRealPath.get(realPath(root)) : undefined);
    if (alias !== undefined) return alias;
    switch (mode) {
      case 'name':
        return basename(root) || root;
      case 'path':
        return root;
      case 'hash':
        return shortHash(root, 12);
      case 'none':
        return 'all';
    }
  }

  private admit(label: string): string {
    if (this.admitted.has(label)) return label;
    if (this.admitted.size >= this.opts.max) {
      this.folded = true;
      return OTHER_PROJECT;
    }
    this.admitted.add(label);
    return label;
  }
}
