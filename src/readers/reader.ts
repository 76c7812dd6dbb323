// What a harness reader is: it knows where a harness keeps its session files and what their
// records mean, and reports what it finds as events on a session. It knows nothing of metrics,
// configuration, persistence or the clock.

import type { HarnessId, RegistryEntry, TodoState, TokenType, ToolCall, TurnOutcome, Usage } from '../session/types.js';

export type { ToolCall };

/** Events a reader reports for the session a file belongs to. */
export interface SessionEvents {
  meta(m: { cwd?: string; gitBranch?: string; model?: string }): void;
  /** A record was written at `ts` (ms). */
  activity(ts: number): void;
  /**
   * Tokens of one model request made at `ts` (ms), or the not yet counted part of it. `tierInput`
   * is the request's whole prompt size, which selects long-context price tiers. `costUsd` is the
   * request's cost as the harness recorded it, where it records one: it is used instead of the
   * list price. `unsaid`: token types this record does not give (0 in `delta` means unknown, and
   * no series is made for them from it).
   */
  usage(model: string, delta: Usage, tierInput: number, ts: number, costUsd?: number, unsaid?: readonly TokenType[]): void;
  context(model: string, tokens: number, limit?: number): void;
  /** Premium requests of `model` the harness billed (GitHub Copilot's unit), not yet counted. */
  premiumRequests(model: string, n: number): void;
  prompt(ts: number): void;
  /**
   * A turn starts at `ts`. A turn still open goes on (a prompt queued while the agent works joins
   * it), unless `endOpenAs` is given: then the open turn ends first, at `ts`, as that outcome (a
   * harness that takes one prompt at a time and writes no end for a turn cut short).
   */
  turnStarted(ts: number, endOpenAs?: TurnOutcome): void;
  /** The open turn ends; nothing when none is open (an end may be written more than once). */
  turnEnded(outcome: TurnOutcome, ts: number): void;
  /**
   * The turn last reported ended goes on after all, and its end is not counted again: for
   * harnesses that write no turn end, where an answer looked final until tool calls followed it.
   * With `endedAs`, only a turn that ended so (a failed request the harness retried after all).
   */
  turnReopened(endedAs?: TurnOutcome): void;
  /** A tool call; the same id again while it is pending changes what it waits on, counted once. */
  toolCall(id: string, call: ToolCall): void;
  /** A pending call now waits for the user's approval (`approval`), or no longer waits (undefined). */
  toolWaits(id: string, waits: ToolCall['waits']): void;
  /** A subagent (by its own id) started (`running`) or ended a turn of its own (Codex). */
  subagent(id: string, running: boolean): void;
  /** The harness archived the session (`true`), or took it out of its archive (`false`). */
  archived(archived: boolean): void;
  /** A call returned; `call` names it when the result comes after the call was already closed. */
  toolResult(id: string, failed: boolean, call?: ToolCall): void;
  lines(added: number, removed: number): void;
  compaction(): void;
  usageLimit(window: string, usedRatio: number, resetsAt: number | undefined): void;
  /** The person last looked at the session at `ts` (ms), where the harness records it. */
  viewed(ts: number): void;
  /** The session's plan (todo list) as it is now: its items by state. */
  todos(byState: Partial<Record<TodoState, number>>): void;
  /** A record that could not be used, by reason (`parse_error`, `unknown_shape`, ...). */
  skipped(reason: string): void;
  /**
   * True the first time a key is seen by this collector, false ever after (dedupe of records a
   * harness writes again in another file: resumed sessions, side chains).
   */
  firstTime(key: string): boolean;
  /**
   * The line being read is the record `key` (unique in the harness's history, whatever file it is
   * in). A record that already moved a counter moves none again: its events still update the
   * session and the reader's state, as a replay does. For a file read again from its start (a
   * rollout replaced by one with another beginning, a copy in another file), for readers whose
   * records are not all deduplicated with `firstTime`. Only in `readLine`.
   */
  record(key: string): void;
}

/** One session file found under a root. */
export interface SessionFile {
  path: string;
  /** The session the file's records belong to (subagent transcripts belong to their parent). */
  sessionId: string;
  /**
   * The file is one JSON document the harness rewrites whole on every change, not appended
   * lines: it is read with `readDocument`, whole, whenever its size or mtime changed.
   */
  document?: true;
  /** The harness archived the session (Codex's `archived_sessions/`). */
  archived?: true;
}

interface ReaderBase<State> {
  readonly harness: HarnessId;
  /** Token types the harness's files never record: they get no series (never a false 0). */
  readonly unrecorded?: readonly TokenType[];
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
  /** Parser state for a file read from its start. Must survive JSON round trips (it is persisted). */
  initialState(file: SessionFile): State;
  /** The live processes the harness registered in its files, where it does (no check that they run). */
  registry?(root: string): RegistryEntry[];
  /** The session a file a harness process holds open belongs to (Codex's rollout), if it is one of this harness's session files. */
  sessionOfOpenFile?(path: string): string | undefined;
}

/**
 * A reader of session files: the collector hands it every complete new line of an append-only
 * JSONL file, or the whole of a file marked `document` whenever it changed.
 */
export interface LineReader<State> extends ReaderBase<State> {
  /** Reads one complete line. Must not throw for bad input: it reports `skipped` instead. */
  readLine(line: Buffer, state: State, file: SessionFile, events: SessionEvents): void;
  /**
   * Reads a whole document (`SessionFile.document`), again after every change, from the state the
   * previous read left: the state remembers what was counted, so that only what is new counts.
   * Must not throw for bad input.
   */
  readDocument?(doc: Buffer, state: State, file: SessionFile, events: SessionEvents): void;
  /**
   * The session a file's records belong to once its records say so (a Codex subagent's rollout
   * names its parent); `file.sessionId` otherwise.
   */
  sessionOf?(file: SessionFile, state: State): string;
}

/**
 * A reader of a store that is not append-only (a SQLite database, a tree of JSON files updated in
 * place) holding many sessions: it finds what changed since the cursor in its state itself,
 * read-only, and reports each record to the events of the session it belongs to. Everything it
 * reports again after a crash (records after the last committed cursor) must be deduplicated
 * with `firstTime`.
 */
export interface StoreReader<State> extends ReaderBase<State> {
  /** Returns false when the store had not changed since `state` (nothing is committed then). */
  readStore(file: SessionFile, state: State, events: (sessionId: string) => SessionEvents): boolean;
}

export type Reader<State> = LineReader<State> | StoreReader<State>;
