// The normalized session record every reader produces, whatever the harness's file format.

import type { HARNESSES, STATUSES, TODO_STATES, TOKEN_TYPES, TOOL_KINDS, TURN_OUTCOMES } from './vocabulary.js';

export type HarnessId = (typeof HARNESSES)[number];

export type Status = (typeof STATUSES)[number];
export type TokenType = (typeof TOKEN_TYPES)[number];
/**
 * What a harness's files may never record: a token type, or `reasoning` (the part of output
 * exported as coding_agent_reasoning_tokens; a harness may record output without it).
 */
export type UsagePart = TokenType | 'reasoning';
export type TodoState = (typeof TODO_STATES)[number];
export type ToolKind = (typeof TOOL_KINDS)[number];
export type TurnOutcome = (typeof TURN_OUTCOMES)[number];

/** Token counts of one model request, in the metric contract's semantics. */
export interface Usage {
  /** Prompt tokens excluding cache reads and cache writes. */
  input: number;
  /** All generated tokens, reasoning included. */
  output: number;
  cacheRead: number;
  /** All cache writes; `cacheWrite1h` is the part written with a one-hour lifetime. */
  cacheWrite: number;
  cacheWrite1h: number;
  /** The reasoning part of `output`. */
  reasoning: number;
}

/**
 * More tokens of one type than a record can say (2^40, about 1.1 trillion): such a count, or one
 * that is not a whole number, is damage, not usage. It is skipped as `implausible_value`, never
 * added: one `1e308` would hold a counter at +Inf for ever.
 */
export const MAX_TOKENS = 2 ** 40;

/** A whole number from 0 to below MAX_TOKENS. */
export function plausibleCount(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n < MAX_TOKENS;
}

/** A finite amount from 0 to below MAX_TOKENS (a cost in USD, premium requests). */
export function plausibleAmount(n: number): boolean {
  return Number.isFinite(n) && n >= 0 && n < MAX_TOKENS;
}

/** Whether every count of a usage is plausible. */
export function plausibleUsage(u: Usage): boolean {
  return (
    plausibleCount(u.input) &&
    plausibleCount(u.output) &&
    plausibleCount(u.cacheRead) &&
    plausibleCount(u.cacheWrite) &&
    plausibleCount(u.cacheWrite1h) &&
    plausibleCount(u.reasoning)
  );
}

export const ZERO_USAGE: Usage = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
});

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h,
    reasoning: a.reasoning + b.reasoning,
  };
}

/**
 * Usage from a prompt count that includes cache reads and writes (the OpenAI convention, also
 * Codex's and Copilot CLI's) and an output count that includes reasoning.
 */
export function usageFromPrompt(
  prompt: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  reasoning: number,
): Usage {
  // A negative prompt is damage, kept as it is for the store to skip; not a 0.
  const input = prompt < 0 ? prompt : Math.max(0, prompt - cacheRead - cacheWrite);
  return { input, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning };
}

/** a − b per field, never below 0 (the part of a cumulative snapshot not yet counted). */
export function minusUsage(a: Usage, b: Usage): Usage {
  const d = (x: number, y: number) => Math.max(0, x - y);
  return {
    input: d(a.input, b.input),
    output: d(a.output, b.output),
    cacheRead: d(a.cacheRead, b.cacheRead),
    cacheWrite: d(a.cacheWrite, b.cacheWrite),
    cacheWrite1h: d(a.cacheWrite1h, b.cacheWrite1h),
    reasoning: d(a.reasoning, b.reasoning),
  };
}

/** The larger of a and b per field. */
export function maxUsage(a: Usage, b: Usage): Usage {
  return {
    input: Math.max(a.input, b.input),
    output: Math.max(a.output, b.output),
    cacheRead: Math.max(a.cacheRead, b.cacheRead),
    cacheWrite: Math.max(a.cacheWrite, b.cacheWrite),
    cacheWrite1h: Math.max(a.cacheWrite1h, b.cacheWrite1h),
    reasoning: Math.max(a.reasoning, b.reasoning),
  };
}

export interface ToolCall {
  /** Tool label: the harness's tool name, `mcp:<server>` for MCP tools, `other` for unknown ones. */
  tool: string;
  kind: ToolKind;
  /** While this call is pending the session waits on the user, or on subagents. */
  waits?: 'question' | 'approval' | 'subagents';
}

/** A call that has not returned yet: when it was made (ms), as far as the records say. */
export interface PendingCall extends ToolCall {
  startedAt?: number;
}

/**
 * A session's calls that have not returned yet, by call id, in the order they were made. A Map,
 * not an object: each call's id is a string read from a line, and as an object's key V8 first
 * made it a property name (recording the calls of a first read of 1 GB took 137 ms of its main
 * thread, 60 ms as a Map). Persisted as an object (`toJSON`), read back with `of`.
 */
export class PendingCalls extends Map<string, PendingCall> {
  /** The calls of a session as persisted (an object by call id), or none where there is no object. */
  static of(persisted: unknown): PendingCalls {
    const calls = new PendingCalls();
    if (typeof persisted === 'object' && persisted !== null)
      for (const [id, call] of Object.entries(persisted)) calls.set(id, call as PendingCall);
    return calls;
  }

  toJSON(): Record<string, PendingCall> {
    return Object.fromEntries(this);
  }
}

/**
 * What is known about one session: identity, where it runs, and the state from which its status
 * is derived. Persisted (as JSON) so a restart knows every session without re-reading history.
 */
export interface Session {
  harness: HarnessId;
  id: string;
  cwd?: string;
  gitBranch?: string;
  /** The model of the latest request (the one in force for context and cost). */
  model?: string;
  startedAt: number;
  lastActivityAt: number;
  /** Start (ms) of the turn still running; absent between turns. */
  turnStartedAt?: number;
  /** The running turn was reopened after its end was counted: its end is not counted again. */
  turnCounted?: true;
  /**
   * The turn that ended last. `unsure`: an answer ended it that tool calls may still follow, not
   * counted yet (see SessionEvents.turnEnded); `wentOn`: a tool of the agent's was seen running since.
   */
  lastTurn?: { outcome: TurnOutcome; endedAt: number; startedAt?: number; unsure?: true; wentOn?: true };
  /** When the person last looked at the session, where the harness records it (OpenCode 2.x). */
  viewedAt?: number;
  /**
   * Since when the session waits on the person, where the harness keeps that wait in a file of its
   * own rather than as a call (Grok Build's plan approval): see SessionEvents.asks.
   */
  asksSince?: number;
  /** The session's plan (todo list): items by state, where the harness records one. */
  todos?: Partial<Record<TodoState, number>>;
  /** Tool calls that have not returned yet, by call id. */
  pendingTools: PendingCalls;
  /** Subagents (their own sessions' ids) whose turn is still running after the parent's turn ended (Codex). */
  subagents?: Record<string, true>;
  /** The harness archived the session: it counts in the counters, not in coding_agent_sessions. */
  archived?: true;
  /**
   * The process last joined to the session, by pid and start (persisted, so that a process that
   * dies while the exporter is down still ends its open turn).
   */
  owner?: { pid: number; startTicks: number };
  /** Records that did work (finished turns, records of an unknown shape), for drift. */
  work?: number;
  contextTokens?: number;
  contextLimit?: number;
  tokens: Usage;
  costUsd: number;
  /**
   * What each model (by its label) of the session used, as the ledger counts it, for `report
   * session` (sessions read before this was kept have none: their whole use under `model`).
   */
  byModel?: Record<string, ModelUse>;
  /** Turns counted, by outcome (as `byModel`, kept from this version on). */
  turnsByOutcome?: Partial<Record<TurnOutcome, number>>;
  /** The first and the last model request's time (ms), as `byModel`. */
  firstRequestAt?: number;
  lastRequestAt?: number;
  /** Some of the session's tokens are of a model without a price: its cost is incomplete. */
  unpriced?: true;
  /** The harness records no tokens (Cursor): the session has no cost to show, not a cost of $0. */
  usageUnrecorded?: true;
  /**
   * The session runs inside another program (a VS Code extension's task): no process is its own,
   * so the process view neither joins one to it nor takes its absence as the agent gone.
   */
  hosted?: true;
}

/** One model's use in a session: tokens by type, cost (USD, of priced requests) and requests. */
export interface ModelUse {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  costUsd: number;
  requests: number;
}

/**
 * Where the status contract treats a harness differently from the rest, declared by its reader:
 * status derivation follows these facts, never a harness's name.
 */
export interface HarnessFacts {
  /** The contract gives the harness no `error` status (Hermes): a failed turn shows as done. */
  noErrorStatus?: true;
  /**
   * The harness's files record a permission request and its answer (Copilot CLI's events): once
   * written after a hook's permission event, they, not the event (approving fires none), say
   * whether a call still waits for approval.
   */
  recordsPermissions?: true;
  /**
   * Some sessions record their tokens only as one total of every type (Warp's builds before
   * `total_charged_usage`), which no metric holds: one that did work with no tokens counted is no drift.
   */
  unsplitTokens?: true;
}

/** How a live process was joined to a session (agent-top's attribution methods; a session without one is `transcript-only`). */
export type Attribution = 'hook' | 'registry' | 'environment' | 'open-file' | 'command-line' | 'cwd';

/**
 * Where a session's turn stands by the last lifecycle event its harness's hook reported
 * (`coding-agent-exporter hook`): a prompt taken, a tool about to run, a permission or answer asked
 * for, a tool done, the turn finished, the session ended.
 */
export type HookPhase = 'prompt' | 'tool' | 'permission' | 'tool-done' | 'stop' | 'end';

/** The freshest hook event of a session: what a status needs of it, never a prompt or a tool's input. */
export interface HookState {
  phase: HookPhase;
  /** When the hook ran (ms since the epoch). */
  at: number;
  /** What a `tool` or `permission` phase waits on a person for, where it does (a question tool, an approval prompt). */
  waits?: 'question' | 'approval';
  tool?: string;
  /** The process the hook ran under (its parent): the agent, or a shell or launcher the agent is above. */
  pid?: number;
}

/**
 * A process a harness registered for a session in its own files (Claude Code's and Qwen Code's
 * `sessions/<pid>.json`, Copilot CLI's `inuse.<pid>.lock`), with what it says it does.
 */
export interface RegistryEntry {
  sessionId: string;
  pid: number;
  /** The pid's start time as the registry recorded it (`/proc/<pid>/stat` field 22): a reused pid does not match. */
  procStart?: number;
  status?: 'busy' | 'idle' | 'waiting';
  waitingFor?: string;
  /** When the process set that status (ms since the epoch), where the registry says. */
  statusAt?: number;
}

/** What the process table says of a session's owner. */
export interface ProcessState {
  attribution: Attribution;
  pid?: number;
  /** The process's start, with the pid its identity. */
  startTicks?: number;
  /** What the harness's registry says the process does, where it says it. */
  status?: 'busy' | 'idle' | 'waiting';
  waitingFor?: string;
  /** When the registry's status was set (ms since the epoch): newer than a hook's event, it is the later word. */
  statusAt?: number;
  /**
   * A live descendant of the agent carries the harness's tool marker (a tool runs), for harnesses
   * whose files cannot tell an approval prompt from a running tool; elsewhere true where a
   * descendant carrying the session id started after the session's last hook event, else undefined.
   */
  toolRunning?: boolean;
  /** CPU cores the agent's process tree used over the last interval, and its resident memory. */
  cpuRatio?: number;
  residentBytes?: number;
}
