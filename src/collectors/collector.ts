// A collector runs one harness's reader over its roots: it lists the files (or searches for them,
// where the harness's listing is a search), reads what changed in each since the last commit (the
// lines appended, a whole document whose size or mtime changed, a store that finds its own
// changes; a backlog of files never read on read threads), hands the reader's events to the
// store, and commits them with each file's offset and the reader's state. It knows lines,
// documents and stores, not what is in them. A failing collector reports itself in its stats and
// costs only its own data.

import { existsSync, statSync, type Stats } from 'node:fs';
import type { Logger } from '../log.js';
import {
  readAtOnce,
  type DocumentSteps,
  type Harness,
  type Reader,
  type SessionFile,
  type StoreReader,
  type Where,
} from '../readers/reader.js';
import type { SessionEvents } from '../session/events.js';
import type { HarnessId } from '../session/types.js';
import { isFile, listingFailures, readRegular, statListed } from '../files/dir.js';
import { readLines, type ReadResult } from '../readers/lines.js';
import type { FileRow, StateDb } from '../state/db.js';
import { drifted } from '../session/drift.js';
import { dedupeKey, type SessionStore } from '../store/store.js';
import { FileSink } from '../store/sink.js';
import { answersHold, EventLog, play } from './event-log.js';
import { FileIdentities } from './identity.js';
import { ReadAhead } from './read-ahead.js';
import type { ReadThreads } from './read-threads.js';
import type { FileRead } from './read-whole.js';
import { parseAhead, TURN_MS } from '../readers/document.js';

export interface CollectorStats {
  success: boolean;
  durationSeconds: number;
  lastSuccess?: number;
  files: number;
  readBytes: number;
  skipped: Map<string, number>;
}

// A document file (one JSON document rewritten whole) larger than this is not read (counted as
// skipped `file_too_large`): it would be held in memory whole, and parsed whole, on every change.
const MAX_DOCUMENT = 32 << 20;
/**
 * A read of a large document that gives the event loop a turn before it goes on (`resume`):
 * while the document is parsed (`parseAhead`), and between steps of its reader's pass over it.
 */
interface Pending {
  turn: Promise<void>;
  resume: () => boolean | Pending;
}

// Files never read, this many bytes of them under a root at least, are read on read threads: below
// it, playing back what one thread read costs the main thread about what the thread saved it
// (measured on 2 cores: 15 % faster at 616 MB, 15 % slower at 126 MB).
const READ_AHEAD_BYTES = 256 << 20;

export interface ReadAheadOptions {
  /** Threads that read files never read before (a backlog) beside the main thread. */
  threads?: ReadThreads;
  /** The least bytes of such files under a root that are worth starting threads for. */
  minBytes?: number;
  /** The main thread reads too (`ReadAhead`); off in tests, to have every file read on a thread. */
  mainReads?: boolean;
}

// Folders a search lists between two turns of the event loop: each costs a stat and, when it
// changed, a listing (tens of microseconds), so a scrape waits a few milliseconds at most.
const SEARCH_STEPS = 32;

/** Removed since it was listed (its listing's stat said it was there): as if it had not been listed. */
const removed = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

export class Collector<S> {
  readonly stats: CollectorStats = { success: true, durationSeconds: 0, files: 0, readBytes: 0, skipped: new Map() };
  /** What was read of each file, and which file each path holds now. */
  private readonly files: FileIdentities;
  private readonly missingRoots = new Set<string>();
  /** Folders that could not be listed at the last scan (logged once, when they became so). */
  private unreadable = new Set<string>();
  /** Stores that could not be read at their last read, with why (logged once per cause). */
  private readonly storeErrors = new Map<string, string>();
  private running: Promise<void> | undefined;
  /** Asked for while a scan ran: one more, searching if any call asked for a search. */
  private again?: { search: boolean };
  /**
   * Where the listing is a search (`filesNear`): what the last search of each root found, and the
   * files processes pointed to since (by path, with their root), read between searches.
   */
  private readonly searched = new Map<string, SessionFile[]>();
  private readonly near = new Map<string, { root: string; file: SessionFile }>();
  /** The first drifted session was logged: one warning per collector is enough to act on. */
  private driftLogged = false;
  /**
   * Sessions read during this scan, with the file that said so: judged for drift once the scan
   * read all their files (Droid's tokens are in a file beside its transcript).
   */
  private readonly readSessions = new Map<string, string>();
  /** Where the harness looks: all that is needed before a root of it is found. */
  private readonly where: Where;
  private readonly load: () => Promise<Reader<S>>;
  /** The reader, loaded by the first scan that finds a root (before any file is read). */
  private reader!: Reader<S>;

  constructor(
    readonly name: string,
    /** The registry's harness, or a reader already loaded. */
    source: Harness | Reader<S>,
    readonly roots: readonly string[],
    private readonly store: SessionStore,
    db: StateDb,
    private readonly log: Logger,
    /** Roots the user configured (a missing one is worth a warning) rather than the harness's defaults (not installed: normal). */
    private readonly rootsConfigured = false,
    private readonly readAhead: ReadAheadOptions = {},
  ) {
    this.where = source;
    this.load = 'load' in source ? () => source.load() as Promise<Reader<S>> : () => Promise.resolve(source);
    this.files = new FileIdentities(name, db.files(name), log);
    if (source.facts) store.declareFacts(source.harness, source.facts);
  }

  /**
   * Reads whatever changed under the roots. Never throws. Yields to the event loop between files
   * so scrapes are answered during a long first scan; overlapping calls run one more scan after
   * the current one instead of a second one beside it. `search`: false where a file changed, and
   * the harness's listing is a search (`filesNear`): the files it found are read, not looked for.
   */
  scan(search = true): Promise<void> {
    if (this.running) {
      this.again = { search: search || this.again?.search === true };
      return this.running;
    }
    this.running = (async () => {
      for (let next: { search: boolean } | undefined = { search }; next; next = this.again) {
        this.again = undefined;
        await this.scanOnce(next.search);
      }
      this.running = undefined;
    })();
    return this.running;
  }

  get harness(): HarnessId {
    return this.where.harness;
  }

  /** Whether the harness's files are found by a search, and new ones where its processes work (`filesNear`). */
  get searches(): boolean {
    return this.where.filesNear !== undefined;
  }

  /**
   * Looks where an agent working in `cwd`, with no session of its own, writes its files
   * (`filesNear`); true when one was not known: the next scan reads it, with no search.
   */
  lookNear(cwd: string): boolean {
    let found = false;
    for (const root of this.roots) {
      const known = new Set(this.searched.get(root)?.map((f) => f.path));
      for (const file of this.where.filesNear?.(cwd, root) ?? []) {
        if (known.has(file.path) || this.near.has(file.path)) continue;
        this.near.set(file.path, { root, file });
        found = true;
      }
    }
    return found;
  }

  /** Loads the reader now where a root of the harness is there (the first scan that finds one would). */
  async loadReader(): Promise<void> {
    if (this.roots.some((root) => existsSync(root))) await this.loaded();
  }

  /** The reader, loaded once; its sessions persisted under an older release's ids are renamed first. */
  private async loaded(): Promise<Reader<S>> {
    if (this.reader) return this.reader;
    const reader = await this.load();
    if (!this.reader && reader.renamedSession) this.store.renameSessions(reader.harness, reader.renamedSession);
    return (this.reader ??= reader);
  }

  /** The folders to watch for changes. */
  watchPaths(): string[] {
    return this.roots.flatMap((root) => this.where.watchPaths(root));
  }

  /** The single files to watch (they may not exist yet), and those a search found (their folders are not watched whole). */
  watchFiles(): string[] {
    return [
      ...this.roots.flatMap((root) => this.where.watchFiles?.(root) ?? []),
      ...[...this.searched.values()].flat().map((f) => f.path),
      ...this.near.keys(),
    ];
  }

  /** Resolves when no scan is running. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async scanOnce(search: boolean): Promise<void> {
    const started = performance.now();
    let ok = true;
    const unreadable = new Map<string, string>();
    // A folder the exporter may not read (permissions, a container's user) is a failure, not
    // an empty folder: the scan fails, and the folder is named once.
    const listing = <T>(f: () => T): T => {
      const { value, failures } = listingFailures(f);
      for (const [path, error] of failures) unreadable.set(path, error);
      return value;
    };
    try {
      const seen = new Set<string>();
      let lastYield = performance.now();
      for (const root of this.roots) {
        if (!this.rootPresent(root, unreadable)) continue;
        const reader = await this.loaded();
        if (reader.registry)
          this.store.setRegistry(
            reader.harness,
            root,
            listing(() => reader.registry!(root)),
          );
        const files = await this.list(reader, root, search, listing);
        const ahead = this.readBacklog(files);
        try {
          for (const file of files) {
            if (seen.has(file.path)) continue;
            seen.add(file.path);
            const read = await ahead?.take(file.path);
            let done = listing(() => this.readFile(file, read));
            while (typeof done !== 'boolean') {
              await done.turn; // scrapes are answered while a large document is parsed and read
              done = listing(done.resume);
            }
            if (!done) ok = false;
            this.files.listed(file.path);
            if (file.archived) this.archive(file.sessionId);
            this.files.handOver(this.store);
            this.store.commitIfDue();
            if (performance.now() - lastYield > 50) {
              await new Promise((r) => setImmediate(r));
              lastYield = performance.now();
            }
          }
        } finally {
          ahead?.close();
        }
      }
      this.files.sweep(seen);
      this.files.handOver(this.store);
      this.logDrift();
      this.stats.files = seen.size;
      this.finish(started, ok, unreadable);
      // Last, with the stats: the commit is what tells the outputs that the scan changed what they serve.
      this.store.scanned();
    } catch (e) {
      this.log.error('scan failed', { collector: this.name, error: String(e) });
      // What was read before the failure is committed with its offsets, never without them.
      this.files.handOver(this.store);
      this.finish(started, false, unreadable);
      this.store.touch();
    }
  }

  /** The scan's stats, and the folders that became unreadable in it named (once). */
  private finish(started: number, ok: boolean, unreadable: ReadonlyMap<string, string>): void {
    for (const [path, error] of unreadable) {
      if (!this.unreadable.has(path)) this.log.warn('cannot read folder', { collector: this.name, path, error });
    }
    this.unreadable = new Set(unreadable.keys());
    if (unreadable.size > 0) ok = false;
    this.stats.success = ok;
    this.stats.durationSeconds = (performance.now() - started) / 1000;
    if (ok) this.stats.lastSuccess = Date.now() / 1000;
  }

  /**
   * A missing root is normal (the harness is not installed); an unreadable one is a failure. A
   * missing one is told without an exception: most harnesses are not installed, and their roots
   * are asked for at every rescan.
   */
  private rootPresent(root: string, unreadable: Map<string, string>): boolean {
    let st: Stats | undefined;
    try {
      st = statSync(root, { throwIfNoEntry: false });
    } catch (e) {
      unreadable.set(root, (e as NodeJS.ErrnoException).code ?? String(e));
      return false;
    }
    if (!st) {
      if (!this.missingRoots.has(root))
        (this.rootsConfigured ? this.log.warn : this.log.debug)('root not found', { collector: this.name, root });
      this.missingRoots.add(root);
      return false;
    }
    // A root is a folder, or a database file (a harness's store named by its environment).
    if (!st.isDirectory() && !st.isFile()) {
      unreadable.set(root, 'ENOTREG');
      return false;
    }
    this.missingRoots.delete(root);
    return true;
  }

  /**
   * A root's files: its listing; where that is a search (`filesNear`), the files the last search
   * found unless `search`, and those processes pointed to that are still there.
   */
  private async list(
    reader: Reader<S>,
    root: string,
    search: boolean,
    listing: <T>(f: () => T) => T,
  ): Promise<SessionFile[]> {
    if (!reader.filesNear) return listing(() => reader.listFiles(root));
    let found = this.searched.get(root);
    if (search || !found) {
      // A listing's stat is not kept: read again by it, a file would look unchanged for ever.
      this.searched.set(
        root,
        (found = (await this.search(reader, root, listing)).map((f) => ({ ...f, stat: undefined }))),
      );
      for (const [path, n] of this.near) if (n.root === root && !isFile(path)) this.near.delete(path);
    }
    return [...found, ...[...this.near.values()].filter((n) => n.root === root).map((n) => n.file)];
  }

  /**
   * A search of a root (a home folder: thousands of folders), step by step where the reader can
   * (`searchFiles`): the event loop turns every SEARCH_STEPS folders, so scrapes are answered during it.
   */
  private async search(reader: Reader<S>, root: string, listing: <T>(f: () => T) => T): Promise<SessionFile[]> {
    if (!reader.searchFiles) return listing(() => reader.listFiles(root));
    const steps = reader.searchFiles(root);
    for (let n = 1; ; n++) {
      const step = listing(() => steps.next());
      if (step.done) return step.value;
      if (n % SEARCH_STEPS === 0) await new Promise((r) => setImmediate(r));
    }
  }

  /** Read threads for the files of a listing never read before, when they are a backlog. */
  private readBacklog(files: SessionFile[]): ReadAhead | undefined {
    const reader = this.reader;
    const { threads, minBytes = READ_AHEAD_BYTES, mainReads } = this.readAhead;
    if (!threads || reader.kind !== 'files') return undefined;
    const fresh = files.filter((f) => !f.document && !f.store && !this.files.get(f.path));
    let bytes = 0;
    for (const f of fresh) bytes += (f.stat ?? statSync(f.path, { throwIfNoEntry: false }))?.size ?? 0;
    if (fresh.length === 0 || bytes < minBytes) return undefined;
    const ahead = ReadAhead.start(threads, reader, fresh, this.store.ledgerOnly, mainReads);
    if (ahead)
      this.log.info('reading a backlog on threads', {
        collector: this.name,
        files: fresh.length,
        bytes,
        threads: threads.claims.length,
      });
    return ahead;
  }

  /** `read`: the file's events, read ahead from its start (`ReadAhead`). */
  private readFile(file: SessionFile, read?: FileRead): boolean | Pending {
    const reader = this.reader;
    // A database a reader of session files lists beside them is read as a store; a document a
    // store reader lists (Kilo's extension tasks), as a document.
    if (!file.document) {
      if (reader.kind === 'store') return this.readStore(reader, reader.readStore, file);
      if (reader.kind === 'files' && file.store && reader.readStore)
        return this.readStore(reader, reader.readStore, file);
    }
    // The listing's stat where it took one: a rescan of files that did not change costs one stat each.
    const st = file.stat ?? statListed(file.path);
    if (!st) return true; // removed between listing and reading, or out of reach (a failure, reported)
    if (this.files.readElsewhere(file.path, st)) return true;
    if (reader.kind !== 'files' || file.document) return this.readDocument(reader, file, st);
    const known = this.files.previous(file.path, st);
    if (known?.unchanged) return true;
    const prev = known?.row;
    const restored = prev && !known.again ? this.restored(prev) : undefined;
    let state = restored ?? reader.initialState(file);
    let offset = prev?.offset ?? 0;
    let replayUntil = 0;
    if (known?.again) {
      // Replaced or shrunk: read again from the start. Lines of the same history are only replayed.
      replayUntil = known.again.replayUntil;
      offset = 0;
    } else if (prev && restored === undefined) {
      // A state this reader can no longer read: the lines read before are replayed to rebuild it.
      replayUntil = prev.offset;
      offset = 0;
    }

    const sessionOf = () => reader.sessionOf?.(file, state) ?? file.sessionId;
    let result: ReadResult;
    if (read && !prev && answersHold(read.log, (key) => this.store.seen(dedupeKey(this.name, key)))) {
      state = JSON.parse(read.state) as S;
      result = this.playBack(file, read);
    } else {
      // A thread's read is thrown away when a record it took as new was counted in a file played
      // back before (the same response in two files read on two threads).
      if (read && !prev)
        this.log.debug('reading again: a record read ahead as new was counted before', {
          collector: this.name,
          path: file.path,
        });
      const events = this.events(sessionOf);
      result = readLines(file.path, offset, (line, at) => {
        events.beginLine(at < replayUntil);
        try {
          reader.readLine(line, state, file, events);
        } catch (e) {
          this.readerFailed(file.path, at, String(e));
        }
      });
    }
    if (result.error && removed(result.error) && result.bytesRead === 0) return true;
    this.readSessions.set(sessionOf(), file.path);
    this.stats.readBytes += result.bytesRead;
    for (let i = 0; i < result.longLines; i++) this.skip('line_too_long');

    this.save(file.path, state, result.bytesRead, {
      st,
      offset: result.offset,
      // A report's own read keeps no file rows: which file this is (its first bytes' hash, read
      // again) is never asked, and it cost a twentieth of the main thread's time.
      head: this.store.ledgerOnly ? undefined : this.files.head(file.path, prev, offset, result.offset),
    });
    if (result.error) {
      this.log.warn('could not read file', { collector: this.name, path: file.path, error: String(result.error) });
      return false;
    }
    return true;
  }

  /**
   * A store (a database) holds many sessions and finds its own changes: its reader keeps the
   * cursor in the state, which is committed with the changes it made.
   */
  private readStore(reader: Reader<S>, readStore: StoreReader<S>['readStore'], file: SessionFile): boolean {
    const prev = this.files.get(file.path);
    // A state of an older shape the reader cannot migrate: the store is read again from its
    // start, every record deduplicated by the reader's own keys.
    const state = (prev && this.restored(prev)) ?? reader.initialState(file);
    const sinks = new Map<string, SessionEvents>();
    const eventsOf = (id: string): SessionEvents => {
      let e = sinks.get(id);
      if (!e) sinks.set(id, (e = this.events(() => id)));
      return e;
    };
    let changed: boolean;
    try {
      changed = readStore.call(reader, file, state, eventsOf);
    } catch (e) {
      // The cursor stays where it was: the next scan reads the same records again, deduplicated.
      const error = String(e);
      if (this.storeErrors.get(file.path) !== error)
        this.log.warn('could not read store', { collector: this.name, path: file.path, error });
      this.storeErrors.set(file.path, error);
      return false;
    }
    this.storeErrors.delete(file.path);
    if (!changed) return true;
    for (const id of sinks.keys()) this.readSessions.set(id, file.path);
    this.save(file.path, state, 0);
    return true;
  }

  /**
   * A file that is one JSON document, rewritten whole (in place or by a rename) on every change:
   * offsets mean nothing in it, so it is read whole whenever its size or mtime changed (a rewrite
   * can keep the size), and the reader's state, kept from the previous read, tells what was
   * already counted. There is no replay and no head identity: the state alone prevents double
   * counting, also when the document is replaced.
   */
  private readDocument(reader: Reader<S>, file: SessionFile, st: Stats): boolean | Pending {
    const prev = this.files.get(file.path);
    if (prev && prev.ino === st.ino && prev.size === st.size && prev.mtimeMs === st.mtimeMs) return true;
    let bytes: Buffer | undefined;
    if (st.size > MAX_DOCUMENT) {
      this.skip('file_too_large');
    } else {
      try {
        bytes = readRegular(file.path);
      } catch (e) {
        if (removed(e)) return true;
        this.log.warn('could not read file', { collector: this.name, path: file.path, error: String(e) });
        return false;
      }
    }
    const parsing = bytes && parseAhead(bytes);
    if (!parsing) return this.readDocumentBytes(reader, file, st, prev, bytes, false);
    return { turn: parsing, resume: () => this.readDocumentBytes(reader, file, st, prev, bytes, true) };
  }

  /**
   * The document's bytes (none where it is too large) handed to its reader, and its row tracked.
   * A large one (`inTurns`, parsed ahead) is read in steps with turns of the event loop between
   * them, its events written down meanwhile and handed to the store when its reader is done: a
   * commit may come during a turn, and must not see a document half read.
   */
  private readDocumentBytes(
    reader: Reader<S>,
    file: SessionFile,
    st: Stats,
    prev: FileRow | undefined,
    bytes: Buffer | undefined,
    inTurns: boolean,
  ): boolean | Pending {
    const restored = prev && this.restored(prev);
    const state = restored ?? reader.initialState(file);
    const done = () => {
      this.save(file.path, state, bytes?.length ?? 0, { st, offset: st.size });
      return true;
    };
    if (!bytes) return done();
    // A state this reader can no longer read is rebuilt from the document as it is now, counting
    // nothing: what it gained since its last read is not counted.
    const rebuild = prev !== undefined && restored === undefined;
    const sessionOf = () => (reader.kind === 'files' ? reader.sessionOf?.(file, state) : undefined) ?? file.sessionId;
    // With its stat: a document without times of its own is of the time it was written.
    const withStat = file.stat ? file : { ...file, stat: st };
    const failed = (e: unknown) => {
      this.skip('reader_error');
      this.log.warn('reader failed on a document', { collector: this.name, path: file.path, error: String(e) });
    };
    const read = () => {
      this.readSessions.set(sessionOf(), file.path);
      this.stats.readBytes += bytes.length;
      return done();
    };
    if (!inTurns) {
      const events = this.events(sessionOf);
      events.beginLine(rebuild);
      try {
        readAtOnce(reader.readDocument?.(bytes, state, withStat, events));
      } catch (e) {
        failed(e);
      }
      return read();
    }
    // Dedupe keys are answered by the store as they are asked (no other read of this collector
    // runs during the turns), and by the keys the pass asked before.
    const log = new EventLog(sessionOf, new Set(), (key) => this.store.seen(dedupeKey(this.name, key)));
    const played = () => {
      let session = file.sessionId;
      const events = this.events(() => session);
      events.beginLine(rebuild);
      play(log.log, {
        events,
        session: (id) => (session = id),
        line: () => events.beginLine(rebuild),
        readerError: () => undefined,
        answered: (k, first) => events.answered(k, first),
      });
      return read();
    };
    let steps: void | DocumentSteps = undefined;
    try {
      steps = reader.readDocument?.(bytes, state, withStat, log.events);
    } catch (e) {
      failed(e);
    }
    return this.stepped(steps, failed, played);
  }

  /** A reader's pass over a document stepped for TURN_MS, then again after a turn of the event loop, until it is done. */
  private stepped(steps: void | DocumentSteps, failed: (e: unknown) => void, done: () => boolean): boolean | Pending {
    const until = performance.now() + TURN_MS;
    try {
      while (steps && !steps.next().done) {
        if (performance.now() >= until)
          return { turn: new Promise((r) => setImmediate(r)), resume: () => this.stepped(steps, failed, done) };
      }
    } catch (e) {
      failed(e);
    }
    return done();
  }

  /**
   * What is kept of a file read, committed with the changes its read made (`bytesRead` of it this
   * time): the reader's state, and, for a file (a store keeps its cursor in the state), the file's
   * identity and how far it was read.
   */
  private save(
    path: string,
    state: S,
    bytesRead: number,
    file?: { st: Stats; offset: number; head?: Pick<FileRow, 'head' | 'headLength'> },
  ): void {
    this.files.track(
      {
        path,
        collector: this.name,
        ino: file?.st.ino ?? 0,
        size: file?.st.size ?? 0,
        mtimeMs: file?.st.mtimeMs ?? 0,
        offset: file?.offset ?? 0,
        state: JSON.stringify(state),
        stateVersion: this.reader.stateVersion,
        ...file?.head,
      },
      bytesRead,
    );
  }

  /**
   * The reader's state as persisted with a file, in the reader's current shape: as it was, or
   * migrated from the older `stateVersion` it was written in; undefined where the reader cannot
   * migrate it (the caller reads the file again without counting what it counted before).
   */
  private restored(prev: FileRow): S | undefined {
    const stored: unknown = JSON.parse(prev.state);
    const from = prev.stateVersion ?? 1;
    if (from === (this.reader.stateVersion ?? 1)) return stored as S;
    const state = this.reader.migrateState?.(stored, from);
    if (state === undefined)
      this.log.info('reader state of another version: reading again', {
        collector: this.name,
        path: prev.path,
        from,
        to: this.reader.stateVersion ?? 1,
      });
    return state;
  }

  /**
   * A file read ahead from its start (on a thread, or by this one while it waited for one): its
   * events go to the store as they would have, had it been read here and now.
   */
  private playBack(file: SessionFile, read: FileRead): ReadResult {
    let session = file.sessionId;
    const events = this.events(() => session);
    play(read.log, {
      events,
      session: (id) => (session = id),
      line: () => events.beginLine(false),
      readerError: (at, error) => this.readerFailed(file.path, at, error),
      // The store gives every answer the log holds (answersHold, just before): not asked again.
      answered: (k, first) => events.answered(k, first),
    });
    return read.result;
  }

  private readerFailed(path: string, offset: number, error: string): void {
    this.skip('reader_error');
    this.log.warn('reader failed on a record', { collector: this.name, path, offset, error });
  }

  /** Logs the first session of this collector that did work with no tokens counted: the reader fell behind the format. */
  private logDrift(): void {
    const read = [...this.readSessions];
    this.readSessions.clear();
    if (this.driftLogged) return;
    for (const [sessionId, path] of read) {
      const s = this.store.sessions.get(`${this.where.harness}/${sessionId}`);
      if (!s || !drifted(s)) continue;
      this.driftLogged = true;
      this.log.warn(
        'reader drift: a session did work but no tokens were counted (has the harness changed its format?)',
        { collector: this.name, path, session: sessionId },
      );
      return;
    }
  }

  /** A session whose file the harness archived (a moved file is not read again, so its records cannot say). */
  private archive(sessionId: string): void {
    this.store.archive(`${this.where.harness}/${sessionId}`);
  }

  /** The store's event sink for records of the session `sessionOf` names. */
  private events(sessionOf: () => string): FileSink {
    return new FileSink(this.store, {
      harness: this.where.harness,
      sessionOf,
      collector: this.name,
      onSkip: (reason) => this.skip(reason),
      unrecorded: this.reader.unrecorded,
    });
  }

  private skip(reason: string): void {
    this.stats.skipped.set(reason, (this.stats.skipped.get(reason) ?? 0) + 1);
  }
}
