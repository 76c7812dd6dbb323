// What a harness reader is: it knows where a harness keeps its session files and what their
// records mean, and reports what it finds as events on a session. It knows nothing of metrics,
// configuration, persistence or the clock.

import type { HarnessId, ProcessState, ToolCall, TurnOutcome, Usage } from '../session/types.js';

export type { ToolCall };

/** Events a reader reports for the session a file belongs to. */
export interface SessionEvents {
  meta(m: { cwd?: string; gitBranch?: string; model?: string }): void;
  /** A record was written at `ts` (ms). */
  activity(ts: number): void;
  /**
   * Tokens of one model request made at `ts` (ms), or the not yet counted part of it. `tierInput`
   * is the request's whole prompt size, which selects long-context price tiers.
   */
  usage(model: string, delta: Usage, tierInput: number, ts: number): void;
  context(model: string, tokens: number, limit?: number): void;
  prompt(ts: number): void;
  turnStarted(ts: number): void;
  turnEnded(outcome: TurnOutcome, ts: number): void;
  /**
   * The turn last reported ended goes on after all, and its end is not counted again: for
   * harnesses that write no turn end, where an answer looked final until tool calls followed it.
   */
  turnReopened(): void;
  toolCall(id: string, call: ToolCall): void;
  /** A call returned; `call` names it when the result comes after the call was already closed. */
  toolResult(id: string, failed: boolean, call?: ToolCall): void;
  lines(added: number, removed: number): void;
  compaction(): void;
  usageLimit(window: string, usedRatio: number, resetsAt: number | undefined): void;
  /** A record that could not be used, by reason (`parse_error`, `unknown_shape`, ...). */
  skipped(reason: string): void;
  /**
   * True the first time a key is seen by this collector, false ever after (dedupe of records a
   * harness writes again in another file: resumed sessions, side chains).
   */
  firstTime(key: string): boolean;
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
}

export interface Reader<State> {
  readonly harness: HarnessId;
  /** Where the harness keeps its files when no root is configured. */
  defaultRoots(env: NodeJS.ProcessEnv, home: string): string[];
  /** The folders under a root where session files change (watched; nothing else is). */
  watchPaths(root: string): string[];
  /** The session files under a root; only directory listings, no file content. */
  listFiles(root: string): SessionFile[];
  /** Parser state for a file read from its start. Must survive JSON round trips (it is persisted). */
  initialState(file: SessionFile): State;
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
  /** Live process state per session id, where the harness publishes it. */
  processes?(root: string): Map<string, ProcessState>;
}
