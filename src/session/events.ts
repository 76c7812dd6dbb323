// The contract between a reader and the store: the events a reader reports about the session a
// file belongs to. Readers call them; the store's per-file sink (src/store/sink.ts) applies them.

import type { TodoState, ToolCall, TurnOutcome, Usage, UsagePart } from './types.js';

/** What was reported of a request before: when, and its usage in all. */
export interface EarlierPart {
  at: number;
  usage: Usage;
}

/** Events a reader reports for the session a file belongs to. */
export interface SessionEvents {
  /**
   * A report's read: the events of UNREPORTED_EVENTS are dropped, and a reader need not work out
   * what it would report in them (the lines a patch changed).
   */
  readonly usageOnly?: boolean;
  /**
   * `hosted`: the session runs inside another program (a task of a VS Code extension, in the
   * editor's extension host): it has no process of its own to see.
   */
  meta(m: { cwd?: string; gitBranch?: string; model?: string; hosted?: true }): void;
  /** A record was written at `ts` (ms). */
  activity(ts: number): void;
  /**
   * Tokens of one model request made at `ts` (ms), or the not yet counted part of it. `tierInput`
   * is the request's whole prompt size, which selects long-context price tiers. `costUsd` is the
   * request's cost as the harness recorded it, where it records one: it is used instead of the
   * list price. `unsaid`: token types this record does not give (0 in `delta` means unknown, and
   * no series is made for them from it). `earlier`: `delta` is more of a request reported before,
   * at `at` with `usage` in all (a response streamed as several records): it is one request, of
   * the time of its last record.
   */
  usage(
    model: string,
    delta: Usage,
    tierInput: number,
    ts: number,
    costUsd?: number,
    unsaid?: readonly UsagePart[],
    earlier?: EarlierPart,
  ): void;
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
  /**
   * The open turn ends; nothing when none is open (an end may be written more than once). With
   * `unsure`, the end is an answer's after which tool calls may still come (a harness that writes
   * them only once they ran): it is counted once that is known, as the turn's end or, where the
   * agent dies while its tool runs or waits, as interrupted.
   */
  turnEnded(outcome: TurnOutcome, ts: number, unsure?: true): void;
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
  /**
   * The harness's files say the session waits on the person since `since` (ms), in a state of its
   * own rather than a call's (Grok Build's plan approval), or no longer (undefined). A turn that
   * ends at or after `since` ends the wait.
   */
  asks(since: number | undefined): void;
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

/**
 * The events of which a report sums nothing: a session's context, tools, edits, plan and limits,
 * what it waits on. A report's own read (`report` with no state database) drops them where a reader
 * reports them (the store's sink, a read thread's event log): a fifth of a cold report's time went
 * to recording, sending and applying them.
 */
export const UNREPORTED_EVENTS = [
  'context',
  'premiumRequests',
  'toolCall',
  'toolWaits',
  'subagent',
  'archived',
  'toolResult',
  'lines',
  'compaction',
  'usageLimit',
  'viewed',
  'asks',
  'todos',
] as const satisfies readonly (keyof SessionEvents)[];

/** What an event of UNREPORTED_EVENTS does in a report's read: nothing. */
export const unreported = (): void => undefined;
