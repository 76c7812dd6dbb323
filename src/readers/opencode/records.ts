// What OpenCode 1.x messages and parts mean, wherever they are stored (the database's `message`
// and `part` rows, or the JSON files of the storage before 1.2): the same objects either way.
// Rows are read again when they change (streaming updates them in place), so everything that
// counts is reported once per record id.

import { num, numberOf, obj, str, type Json } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import type { TurnOutcome, Usage } from '../../session/types.js';
import { classifyTool } from './tools.js';

export interface DbState {
  /** The store's signature at the last read (see storeChanged). */
  sig?: string;
  /** Rows updated at or after this time (ms) are read. */
  since: number;
  /** Sessions with a turn still open, by id, with the time of their last row. */
  live: Record<string, number>;
  /** JSON storage: the newest file mtime read (a newer file is a change). */
  newest?: number;
}

/** A session as both stores have it. */
export interface SessionRow {
  id: string;
  parent_id: string | null;
  directory: string | null;
  time_updated: number;
  /** Set when the person archived the session (counted, not shown among live sessions). */
  time_archived?: number | null;
}

/** A message (no `message_id`) or a part (with its message's role and model) of one session. */
export interface RecordRow {
  id: string;
  time_created: number;
  time_updated: number;
  data: string;
  message_id?: string;
  role?: string | null;
  model?: string | null;
}

/** How a session's records are reported: to which session, and what they move on. */
export interface SessionContext {
  state: DbState;
  rootOf(id: string): string;
  eventsOf(sessionId: string): SessionEvents;
  /** A record written at this time was read (moves the cursor). */
  seen(t: number): void;
  /** The stored JSON of a message of the session, by id (the user message whose turn ended). */
  messageData(id: string): string | undefined;
  /** The statuses of the items of a session's plan (todo list) as it is now. */
  todos(sessionId: string): unknown[];
  /** The MCP server names configured for a session's folder. */
  servers(directory: string | null): readonly string[];
}

/** The session a record is reported to: its own, or its root's for a subagent's session. */
export interface Target {
  events: SessionEvents;
  /** A subagent's session: its tokens and tools count for the root; its turns and prompts do not. */
  child: boolean;
  /** The MCP servers configured for the session's folder (asked only for a tool name that needs them). */
  servers: () => readonly string[];
}

/**
 * OpenCode's `tokens` of one call, in the contract's terms. OpenCode already leaves cache reads
 * out of `input`. Whether `reasoning` is inside `output` changed across versions and providers;
 * `total`, where recorded, tells: equal to input + output + cache, reasoning was inside.
 */
export function usageOf(tokens: Json): Usage {
  const cache = obj(tokens.cache) ?? {};
  const input = numberOf(tokens.input);
  const out = numberOf(tokens.output);
  const cacheRead = numberOf(cache.read);
  const cacheWrite = numberOf(cache.write);
  const reasoning = numberOf(tokens.reasoning);
  const inside = typeof tokens.total === 'number' && tokens.total === input + out + cacheRead + cacheWrite;
  return { input, output: inside ? out : out + reasoning, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning };
}

/**
 * One model call's tokens, counted once under `key`, with OpenCode's recorded cost where it has
 * one (it records 0 for subscription providers: those are priced at list prices).
 */
export function countCall(t: Target, key: string, tokens: Json, model: string, ts: number, cost: number): void {
  if (!t.events.firstTime(key)) return;
  const u = usageOf(tokens);
  const prompt = u.input + u.cacheRead + u.cacheWrite;
  t.events.usage(model, u, prompt, ts, cost === 0 ? undefined : cost);
  if (!t.child) t.events.context(model, prompt);
}

/** How a finished assistant message ends its turn, if it does (a `tool-calls` finish goes on). */
function turnOutcome(data: Json): TurnOutcome | undefined {
  const error = obj(data.error);
  if (error) return str(error.name) === 'MessageAbortedError' ? 'interrupted' : 'failed';
  const finish = str(data.finish);
  return finish && finish !== 'tool-calls' ? 'completed' : undefined;
}

/** What a message says of its session's turn. */
export interface MessageResult {
  /** The turn is still open after this message. */
  open: boolean;
  /** The turn ended with this message, first seen now: the id of the user message it answered. */
  ended?: string;
}

export function readMessage(t: Target, id: string, data: Json, updated: number): MessageResult {
  const ev = t.events;
  ev.activity(updated);
  const created = num(obj(data.time)?.created) || updated;
  if (data.role === 'user') {
    if (!t.child && ev.firstTime(`turn:${id}`)) ev.turnStarted(created);
    return { open: true };
  }
  if (data.role !== 'assistant') {
    ev.skipped('unknown_shape');
    return { open: false };
  }
  const model = str(data.modelID);
  if (model && !t.child) ev.meta({ model });
  const completed = num(obj(data.time)?.completed);
  const outcome = completed ? turnOutcome(data) : undefined;
  if (!outcome) return { open: true };
  if (t.child || !ev.firstTime(`end:${id}`)) return { open: false };
  ev.turnEnded(outcome, completed);
  return { open: false, ended: str(data.parentID) };
}

/** The part types `readPart` reads; the others (reasoning, files, snapshots...) count nothing. */
export const READ_PART_TYPES: ReadonlySet<string> = new Set(['text', 'step-finish', 'tool', 'compaction']);

/** A part of a message whose role and model the caller looked up. */
export function readPart(
  t: Target,
  id: string,
  messageId: string,
  role: string | undefined,
  model: string | undefined,
  data: Json,
  updated: number,
): void {
  const ev = t.events;
  ev.activity(updated);
  switch (data.type) {
    case 'text':
      // The person's prompt; synthetic text is what OpenCode adds (file contents, reminders).
      if (
        role === 'user' &&
        !t.child &&
        data.synthetic !== true &&
        data.ignored !== true &&
        ev.firstTime(`prompt:${messageId}`)
      )
        ev.prompt(updated);
      return;
    case 'step-finish': {
      const tokens = obj(data.tokens);
      if (!tokens || !model) return ev.skipped('unknown_shape');
      return countCall(t, `step:${id}`, tokens, model, updated, numberOf(data.cost));
    }
    case 'tool': {
      const callId = str(data.callID);
      const name = str(data.tool);
      const status = str(obj(data.state)?.status);
      if (!callId || !name || !status) return ev.skipped('unknown_shape');
      return readToolCall(t, callId, name, status);
    }
    case 'compaction':
      if (ev.firstTime(`compaction:${id}`)) ev.compaction();
      return;
    default:
  }
}

/**
 * A tool call as its row says now (rows are updated in place as the call runs): counted the first
 * time it is seen, its result once it completed or failed.
 */
export function readToolCall(t: Target, callId: string, name: string, status: string): void {
  const ev = t.events;
  const call = classifyTool(name, t.servers);
  if (ev.firstTime(`call:${callId}`)) ev.toolCall(callId, call);
  if ((status === 'completed' || status === 'error') && ev.firstTime(`done:${callId}`))
    ev.toolResult(callId, status === 'error', call);
}

/** Lines a turn changed, from the per-turn diff summary OpenCode keeps on the user message. */
export function turnLines(data: Json): { added: number; removed: number } | undefined {
  const diffs = obj(data.summary)?.diffs;
  if (!Array.isArray(diffs)) return undefined;
  let added = 0;
  let removed = 0;
  for (const d of diffs) {
    added += numberOf(obj(d)?.additions);
    removed += numberOf(obj(d)?.deletions);
  }
  return { added, removed };
}

/** Where a session's records are reported (its root's session), with what its own row says. */
export function sessionTarget(
  s: SessionRow,
  ctx: Pick<SessionContext, 'rootOf' | 'eventsOf' | 'seen' | 'servers'>,
): Target {
  ctx.seen(s.time_updated);
  const root = ctx.rootOf(s.id);
  const t: Target = { events: ctx.eventsOf(root), child: root !== s.id, servers: () => ctx.servers(s.directory) };
  if (!t.child && s.directory) t.events.meta({ cwd: s.directory });
  if (!t.child) t.events.archived(Boolean(s.time_archived));
  t.events.activity(s.time_updated);
  return t;
}

/**
 * A session whose turn is open after its records (`open`) is read on every change until it
 * ends; `at` is its newest record. Undefined: its records said nothing of its turn.
 */
export function markLive(state: DbState, id: string, open: boolean | undefined, at: number): void {
  if (open === true) state.live[id] = Math.max(state.live[id] ?? 0, at);
  else if (open === false) delete state.live[id];
}
