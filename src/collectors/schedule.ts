// When a collector reads, after its first scan: as watching sees its files change (`WatchPlan`),
// and at the rescan, which catches what watching misses and backs off while it misses nothing
// (`RescanPlan`). The exporter (agent.ts) runs the reads; this says when.

import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { FolderWatcher } from '../files/watch.js';
import type { Collector, CollectorStats } from './collector.js';

// At most one read per collector per this window while its files keep changing.
export const READ_WINDOW_MS = 100;
// While watching misses nothing, a collector's rescan backs off to this many times `rescanSeconds`.
export const RESCAN_BACKOFF = 10;

type AnyCollector = Collector<unknown>;

export interface WatchHandlers {
  /** Reads a collector whose files changed: at most once a READ_WINDOW_MS while they keep changing. */
  read(c: AnyCollector): void;
  /** A collector's files changed, before its read is due (a session file's agent, perhaps just started, is looked for at once). */
  changed(): void;
  /** The exporter's own files in its state folder (the hook spool, the statusline's record), each with what runs when it changes. */
  own: ReadonlyMap<string, () => void>;
  /** Processes say where a search's new files are (a process scan runs): a collector that searches is watched too. */
  searchesWatched: boolean;
  /** A watcher failed (logged). */
  failed(e: Error): void;
}

/**
 * Watches only the folders where session files change (not a harness's whole folder: no
 * settings, logs or credentials), and the single files a store is made of (a database and its
 * `-wal`, which come and go with the harness: their folder is watched, not recursively, for
 * them), and has a collector read when something changed there. A folder that does not exist
 * yet (a harness installed later) is waited for in its nearest existing parent, not recursively
 * (names come and go there, nothing is read), and watched once it appears. The exporter's own
 * files are watched in the state folder.
 */
export class WatchPlan {
  /** The collectors whose new files are seen without a rescan: their folders are watched, or (a search's files) processes say where they are. */
  watched: ReadonlySet<AnyCollector> = new Set();
  /** A watcher failed since `takeFailed` was last asked. */
  failing = false;
  // Asked again at each look: a reader's folders may grow (a new OpenClaw agent's).
  private folders: { path: string; c: AnyCollector }[] = [];
  private files: { path: string; c: AnyCollector }[] = [];
  private readonly pending = new Set<AnyCollector>();
  private timer?: NodeJS.Timeout;
  private lastRead = -Infinity;
  private readonly deep: FolderWatcher;
  private readonly shallow: FolderWatcher;
  private readonly parents: FolderWatcher;
  /** A burst of folders made at once is looked at once. */
  private recheck = false;
  private missing: string[] = [];
  private readonly watchedPaths = new Set<string>();
  private readonly waitedIn = new Set<string>();
  /** What was found of each folder during one look: the missing share their parents. */
  private exists = new Map<string, boolean>();

  constructor(
    private readonly collectors: readonly AnyCollector[],
    private readonly on: WatchHandlers,
  ) {
    const failed = (e: Error) => {
      this.failing = true;
      on.failed(e);
    };
    this.deep = new FolderWatcher(
      5,
      (path) => this.changed(this.folders.find((r) => path.startsWith(r.path))?.c),
      failed,
    );
    this.shallow = new FolderWatcher(
      0,
      (path) => {
        const own = on.own.get(path);
        if (own) own();
        else this.changed(this.files.find((r) => r.path === path)?.c);
      },
      failed,
    );
    // In a parent, only an entry on the way to a missing folder matters (a home folder changes often).
    this.parents = new FolderWatcher(
      0,
      (path) => {
        if (this.missing.some((m) => m === path || m.startsWith(`${path}${sep}`))) this.lookSoon();
      },
      failed,
    );
    this.look(false);
  }

  /**
   * Looks again for the folders to watch (every rescan, and where an agent's files were found
   * near it): what a folder that appeared holds already is read now, not at the next rescan.
   */
  lookAgain(): void {
    this.look(true);
  }

  /** Whether a watcher failed since the last time this was asked. */
  takeFailed(): boolean {
    const failed = this.failing;
    this.failing = false;
    return failed;
  }

  close(): void {
    clearTimeout(this.timer);
    for (const w of [this.deep, this.shallow, this.parents]) w.close();
  }

  private changed(c: AnyCollector | undefined): void {
    if (!c) return;
    this.pending.add(c);
    this.on.changed();
    // A change after a quiet spell is read at once; the rest of a burst (a streamed answer)
    // waits for the end of the window and is read in one go, so that a scan of every file
    // runs at most once a window however fast lines arrive.
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        this.lastRead = performance.now();
        const todo = [...this.pending];
        this.pending.clear();
        for (const t of todo) this.on.read(t);
      },
      Math.max(0, this.lastRead + READ_WINDOW_MS - performance.now()),
    );
  }

  private lookSoon(): void {
    if (this.recheck) return;
    this.recheck = true;
    setImmediate(() => {
      this.recheck = false;
      this.lookAgain();
    });
  }

  private watchExisting(watcher: FolderWatcher, paths: string[]): string[] {
    const found = [...new Set(paths)].filter((p) => !this.watchedPaths.has(p) && isThere(p, this.exists));
    for (const p of found) this.watchedPaths.add(p);
    watcher.add(found);
    return found;
  }

  /** `read`: what a folder that appeared holds already is read now (the first scan reads what was there at start). */
  private look(read: boolean): void {
    this.exists = new Map();
    const { collectors } = this;
    const folders = (this.folders = collectors.flatMap((c) => c.watchPaths().map((path) => ({ path, c }))));
    const files = (this.files = collectors.flatMap((c) => c.watchFiles().map((path) => ({ path, c }))));
    this.watched = new Set([
      ...folders.map((f) => f.c),
      ...(this.on.searchesWatched ? collectors.filter((c) => c.searches) : []),
    ]);
    const found = [
      ...this.watchExisting(
        this.deep,
        folders.map((r) => r.path),
      ),
      ...this.watchExisting(this.shallow, [
        ...files.map((r) => dirname(r.path)),
        ...[...this.on.own.keys()].map((p) => dirname(p)),
      ]),
    ];
    for (const f of read ? found : []) {
      for (const r of folders) if (r.path === f) this.changed(r.c);
      for (const r of files) if (dirname(r.path) === f) this.changed(r.c);
    }
    this.missing = [...new Set([...folders.map((r) => r.path), ...files.map((r) => dirname(r.path))])].filter(
      (p) => !this.watchedPaths.has(p),
    );
    // A parent is watched while a folder is still missing below it, and no longer.
    const needed = new Set(this.missing.map((p) => nearestExisting(p, this.exists)));
    const done = [...this.waitedIn].filter((p) => !needed.has(p));
    const added = [...needed].filter((p) => !this.waitedIn.has(p));
    for (const p of done) this.waitedIn.delete(p);
    for (const p of added) this.waitedIn.add(p);
    this.parents.unwatch(done);
    this.parents.add(added);
    // A folder made between finding its parent and watching that is seen.
    if (added.length > 0) this.lookSoon();
  }
}

/** What the rescan asks of a collector. */
export interface Rescanned {
  /** Whether its files are found by a search (`Collector.searches`). */
  readonly searches: boolean;
  readonly stats: Pick<CollectorStats, 'success' | 'readBytes' | 'files'>;
}

/** A rescan under way: the collectors due, what they had read before it, and whether watching had failed since the one before. */
export interface Round<C> {
  due: C[];
  at: number;
  before: Map<C, string>;
  watchFailed: boolean;
}

/**
 * The rescan, which catches what watching misses, every `rescanSeconds` (`periodMs`). A collector
 * whose folders are watched, while watching misses nothing for it (no watch error, it read, and
 * its rescan found nothing new: no file read, none come or gone), waits twice as long before each
 * rescan as before the last, up to RESCAN_BACKOFF times `rescanSeconds`; anything else brings it
 * back to `rescanSeconds`. A search (Aider's of the home folder: a stat per folder) whose files
 * are watched, and whose new files processes point to (`Collector.lookNear`), is the fallback for
 * what both miss: it waits that longest from the first scan on. The others (databases named in a
 * list) are found by rescans alone. A no-change rescan of every file was most of what an exporter
 * with nothing to do cost; on a home of 6,000 folders, the search every 30 s was.
 */
export class RescanPlan<C extends Rescanned> {
  /** Per collector, how long its rescan last waited and when it is next due (performance.now()). */
  private readonly rescans = new Map<C, { wait: number; dueAt: number }>();

  constructor(
    private readonly collectors: readonly C[],
    readonly periodMs: number,
  ) {}

  /** The first scan is done at `now`: a search that is watched waits the longest from here. */
  start(watched: ReadonlySet<C>, now: number): void {
    const longest = this.periodMs * RESCAN_BACKOFF;
    for (const c of watched) if (c.searches) this.rescans.set(c, { wait: longest, dueAt: now + longest });
  }

  /** A rescan starts at `now` (the timer runs once a period): the collectors due within half a period. */
  begin(now: number, watchFailed: boolean): Round<C> {
    const due = this.collectors.filter((c) => (this.rescans.get(c)?.dueAt ?? 0) <= now + this.periodMs / 2);
    return { due, at: now, before: new Map(due.map((c) => [c, readSoFar(c)])), watchFailed };
  }

  /** The rescan `round` is done: each collector's next wait, `watched` and `watchFailed` as watching stands now. */
  end(round: Round<C>, watched: ReadonlySet<C>, watchFailed: boolean): void {
    const base = this.periodMs;
    for (const c of round.due) {
      const quiet =
        watched.has(c) && !round.watchFailed && !watchFailed && c.stats.success && readSoFar(c) === round.before.get(c);
      const wait = nextRescanMs(c.searches ? base * RESCAN_BACKOFF : (this.rescans.get(c)?.wait ?? base), base, quiet);
      this.rescans.set(c, { wait, dueAt: round.at + wait });
    }
  }
}

/** What a collector read and listed: a rescan that leaves it as it was found nothing new. */
function readSoFar(c: Rescanned): string {
  return `${c.stats.readBytes}/${c.stats.files}`;
}

/**
 * The wait before the next rescan, after one that waited `last`: twice that (at most RESCAN_BACKOFF
 * times `base`) where it found nothing new while watching works (`quiet`), else `base`.
 */
export function nextRescanMs(last: number, base: number, quiet: boolean): number {
  return quiet ? Math.min(last * 2, base * RESCAN_BACKOFF) : base;
}

/** Whether `path` exists, asked once per look (`seen`). */
function isThere(path: string, seen: Map<string, boolean>): boolean {
  let e = seen.get(path);
  if (e === undefined) seen.set(path, (e = existsSync(path)));
  return e;
}

/** The nearest folder at or above `path` that exists; `seen` as for `isThere`. */
function nearestExisting(path: string, seen: Map<string, boolean>): string {
  let p = path;
  while (!isThere(p, seen) && dirname(p) !== p) p = dirname(p);
  return p;
}
