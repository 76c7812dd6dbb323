// What a harness reader is: where a harness keeps its files (`Where`, a reader folder's where.ts,
// loaded without the parser) and what their records mean, reported as events on the sessions
// they belong to. It knows nothing of metrics or of the exporter's configuration. Its parser
// state is the collector's to persist: the reader gives its shape a version and migrates an older
// one. It reads the clock only where a record has no time of its own (taken as written now) or
// a store changed so recently that it is read again at the next scan.

import type { Stats } from 'node:fs';
import type { SessionEvents } from '../session/events.js';
import type { HarnessFacts, HarnessId, RegistryEntry, UsagePart } from '../session/types.js';

/** One session file found under a root. */
export interface SessionFile {
  path: string;
  /** The session the file's records belong to (subagent transcripts belong to their parent). */
  sessionId: string;
  /**
   * The file is one JSON document the harness rewrites whole on every change, not appended
   * lines: it is read with `readDocument`, whole, whenever its size or mtime changed (every file
   * of a `documents` reader is one).
   */
  document?: true;
  /** The harness archived the session (Codex's `archived_sessions/`). */
  archived?: true;
  /**
   * The file's stat, where the listing took one to know the file is there (`fileStat`): the
   * collector reads by it instead of stat-ing the file a second time. Always there for
   * `readDocument` (its mtime: when a document without times of its own was written).
   */
  stat?: Stats;
  /**
   * The file is a database a reader of session files reads as a store (`readStore`), beside its
   * logs: Copilot CLI's `session-store.db`, one row per model call of every session.
   */
  store?: true;
}

interface ReaderBase<State> {
  readonly harness: HarnessId;
  /**
   * Token types the harness's files never record, and `reasoning` where they record output but
   * not its reasoning part: they get no series (never a false 0).
   */
  readonly unrecorded?: readonly UsagePart[];
  /** Where the status contract treats the harness differently from the rest. */
  readonly facts?: HarnessFacts;
  /**
   * The shape of `State` as persisted: raised whenever the shape changes, so that a state saved by
   * an older release is never read as the new shape. 1 when absent.
   */
  readonly stateVersion?: number;
  /**
   * A state persisted at an older `stateVersion` (`from`), in the current shape; undefined, or no
   * `migrateState`: the file is read again from its start, counting nothing it counted before
   * (lines up to the offset read are replayed muted; a document is read whole, muted). A store
   * reader without it reads its store again from the start, deduplicated by its `firstTime` keys.
   */
  migrateState?(old: unknown, from: number): State | undefined;
  /**
   * The id this reader gives a session an older release persisted under `id`, where they differ
   * (Aider's ids were their history file's path): the collector has the store rename it before
   * the reader reads anything, so that the session goes on under its new id.
   */
  renamedSession?(id: string): string | undefined;
  /** Where the harness keeps its files when no root is configured. */
  defaultRoots(env: NodeJS.ProcessEnv, home: string): string[];
  /** The folders under a root where session files change (watched; nothing else is). */
  watchPaths(root: string): string[];
  /**
   * Single files whose changes are changes of the store (a database and its `-wal`), whether or
   * not they exist yet: their folder is watched for them alone, not recursively.
   */
  watchFiles?(root: string): string[];
  /** The session files (or stores) under a root; only directory listings, no file content. */
  listFiles(root: string): SessionFile[];
  /**
   * Where `listFiles` is a search of a tree too large to walk at every read (Aider's of the home
   * folder): the files under `root` that a process of the harness working in `cwd` writes. The
   * collector then searches only at a rescan, reads the files found as they change, and looks here
   * for those of an agent the process scan found with no session of its own.
   */
  filesNear?(cwd: string, root: string): SessionFile[];
  /**
   * `listFiles` step by step, where it is such a search: it yields after each folder it lists, so
   * that the collector answers scrapes during it, and returns what `listFiles` returns.
   */
  searchFiles?(root: string): Generator<void, SessionFile[], void>;
  /** Parser state for a file read from its start. Must survive JSON round trips (it is persisted). */
  initialState(file: SessionFile): State;
  /** The live processes the harness registered in its files, where it does (no check that they run). */
  registry?(root: string): RegistryEntry[];
  /** The session a file a harness process holds open belongs to (Codex's rollout), if it is one of this harness's session files. */
  sessionOfOpenFile?(path: string): string | undefined;
  /**
   * Reads a whole document (`SessionFile.document`), again after every change, from the state the
   * previous read left: the state remembers what was counted, so that only what is new counts.
   * Must not throw for bad input. A store reader may list documents too (Kilo's database and its
   * VS Code extension's task files are one harness).
   */
  readDocument?(doc: Buffer, state: State, file: SessionFile, events: SessionEvents): void | DocumentSteps;
}

/**
 * A reader's pass over a document that holds many records (a transcript): it yields between
 * records, so that the collector gives the event loop turns during a large one (every few
 * milliseconds). Nothing it reports is seen by the store before the pass is done.
 */
export type DocumentSteps = Generator<void, void, void>;

/** A document's pass run to its end at once (a small document, or a test). */
export function readAtOnce(pass: void | DocumentSteps): void {
  if (pass) for (let s = pass.next(); !s.done; s = pass.next());
}

/**
 * A reader of session files: the collector hands it every complete new line of an append-only
 * JSONL file, or the whole of a file marked `document` whenever it changed.
 */
export interface LineReader<State> extends ReaderBase<State> {
  /** Session files: appended JSONL lines, or documents rewritten whole (`SessionFile.document`). */
  readonly kind: 'files';
  /** Reads one complete line. Must not throw for bad input: it reports `skipped` instead. */
  readLine(line: Buffer, state: State, file: SessionFile, events: SessionEvents): void;
  /**
   * The session a file's records belong to once its records say so (a Codex subagent's rollout
   * names its parent); `file.sessionId` otherwise.
   */
  sessionOf?(file: SessionFile, state: State): string;
  /** Reads a file listed as a store (`SessionFile.store`), as `StoreReader.readStore` does. */
  readStore?(file: SessionFile, state: State, events: (sessionId: string) => SessionEvents): boolean;
}

/**
 * A reader of a store that is not append-only (a SQLite database, a tree of JSON files updated in
 * place) holding many sessions: it finds what changed since the cursor in its state itself,
 * read-only, and reports each record to the events of the session it belongs to. Everything it
 * reports again after a crash (records after the last committed cursor) must be deduplicated
 * with `firstTime`.
 */
export interface StoreReader<State> extends ReaderBase<State> {
  /** One store holding many sessions, which finds its own changes. */
  readonly kind: 'store';
  /** Returns false when the store had not changed since `state` (nothing is committed then). */
  readStore(file: SessionFile, state: State, events: (sessionId: string) => SessionEvents): boolean;
}

/**
 * A reader of session files that are each one JSON document the harness rewrites whole (Amp's
 * threads, Cline's tasks): the collector hands it the whole of a file whenever it changed, as
 * though every file were listed `document`.
 */
export interface DocumentReader<State> extends ReaderBase<State> {
  /** Session files, each one document rewritten whole. */
  readonly kind: 'documents';
  readDocument(doc: Buffer, state: State, file: SessionFile, events: SessionEvents): void | DocumentSteps;
}

export type Reader<State> = LineReader<State> | DocumentReader<State> | StoreReader<State>;

/**
 * Where a harness looks, and what else is known of it before any of its files is read: a reader
 * folder's `where.ts`, which loads none of its parser (the registry loads that once a root is
 * there), and which its reader spreads.
 */
export type Where = Pick<
  ReaderBase<unknown>,
  'harness' | 'facts' | 'defaultRoots' | 'watchPaths' | 'watchFiles' | 'filesNear' | 'sessionOfOpenFile'
>;

/** A harness as the registry holds it: where it looks, and its reader, loaded when first needed. */
export interface Harness extends Where {
  load(): Promise<Reader<unknown>>;
}
