// VS Code's chat session journal, `chatSessions/<session id>.jsonl`: an object mutation log. Its
// first line (`kind` 0) is the whole session (`ISerializableChatData`), each later one a change at
// a path of it: 1 sets a value, 2 pushes to an array (after cutting it to `i` items, where given),
// 3 deletes. After 1024 changes VS Code rewrites the file as one `kind` 0 line: it shrinks, and is
// read whole at every change as a document (older builds wrote the session as one `.json`
// document, the same object). Every record counts once by its own id whichever rewrite holds it:
// a request by `requestId`, a tool call by `toolCallId`; what a rewrite drops stays counted.
//
// A request's `modelState.value` says where it stands: 0 pending, 1 complete, 2 cancelled, 3
// failed (a request is sealed once 1 to 3: not written again), 4 waiting on the person (a tool's
// confirmation, an elicitation, a question). Its tokens are `result.metadata.outputTokens`
// (output only: `promptTokens` includes the cache with no split), counted only where the OTel
// database has none of the request's calls (traces.ts): a turn's tokens come from one of them.

import type { SessionEvents } from '../../session/events.js';
import type { TurnOutcome, Usage, UsagePart } from '../../session/types.js';
import { parsable } from '../document.js';
import { jsonValue, num, numberOf, obj, str, type Json } from '../fields.js';
import { mcpTool } from '../tools.js';
import { classifyTool } from './tools.js';

const OUTCOMES: Record<number, TurnOutcome> = { 1: 'completed', 2: 'interrupted', 3: 'failed' };
const NEEDS_INPUT = 4;
// What the journal does not say of a request's tokens: only its output is recorded.
const JOURNAL_UNSAID: readonly UsagePart[] = ['input', 'cache_read', 'cache_write', 'reasoning'];

type Path = (string | number)[];
// Keys a path must not name: setting them would change an object's prototype, or Object's.
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

/** The session as the log leaves it, or undefined (counted as skipped) where it has none. */
export function replay(doc: Buffer, log: boolean, ev: SessionEvents): Json | undefined {
  // Held to a document's bound (document.ts), whether it is one JSON text or a log of them.
  if (!parsable(doc)) {
    ev.skipped('file_too_large');
    return undefined;
  }
  const text = doc.toString('utf8');
  if (!log) {
    const whole = obj(jsonValue(text));
    if (!whole) ev.skipped('parse_error');
    return whole;
  }
  let root: Json | undefined;
  const entries = jsonLines(text, ev);
  for (const entry of entries) {
    if (entry.kind === 0) {
      root = obj(entry.v);
      if (!root) ev.skipped('unknown_shape');
    } else if (!root || !apply(root, entry)) ev.skipped('unknown_shape');
  }
  return root;
}

/**
 * The JSON objects of a file of lines read whole; a line that is none is counted as skipped, but
 * for the last one of a file being appended to (lines before it, and no newline after it): it is
 * being written, and the next read has it whole.
 */
export function jsonLines(text: string, ev: SessionEvents): Json[] {
  const lines = text.split('\n');
  const out: Json[] = [];
  lines.forEach((line, n) => {
    if (!line.trim()) return;
    const value = jsonValue(line);
    const o = obj(value);
    if (o) out.push(o);
    else if (!(value === undefined && n === lines.length - 1 && n > 0))
      ev.skipped(value === undefined ? 'parse_error' : 'unknown_shape');
  });
  return out;
}

/** Applies one change to the session; false where it is none this reader knows. */
function apply(root: Json, entry: Json): boolean {
  const k = entry.k;
  if (
    !Array.isArray(k) ||
    k.length === 0 ||
    !k.every((p) => typeof p === 'number' || (typeof p === 'string' && !UNSAFE.has(p)))
  )
    return false;
  const path = k as Path;
  const parent = at(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (parent === undefined || (Array.isArray(parent) && typeof key !== 'number')) return false;
  const slot = parent as Record<string | number, unknown>;
  if (entry.kind === 1) slot[key] = entry.v;
  else if (entry.kind === 3) delete slot[key];
  else if (entry.kind === 2) {
    const items = entry.v;
    if (!Array.isArray(items)) return false;
    const arr = Array.isArray(slot[key]) ? (slot[key] as unknown[]) : ((slot[key] = []) as unknown[]);
    if (typeof entry.i === 'number' && entry.i >= 0 && entry.i < arr.length) arr.length = entry.i;
    arr.push(...(items as unknown[]));
  } else return false;
  return true;
}

/** The object or array at a path, or undefined. */
function at(root: unknown, path: Path): object | undefined {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v !== null && typeof v === 'object' ? v : undefined;
}

/** The model a request was sent to: the picker's id without its `copilot/` vendor. */
export function modelOf(request: Json): string | undefined {
  const id = str(request.modelId) ?? str(obj(obj(request.result)?.metadata)?.resolvedModel);
  return id?.replace(/^copilot\//, '');
}

/** A request's state: `modelState`, or for older files `isCanceled` and its result. */
function stateOf(r: Json): number {
  const value = obj(r.modelState)?.value;
  if (typeof value === 'number') return value;
  if (r.isCanceled === true) return 2;
  const result = obj(r.result);
  return result ? (obj(result.errorDetails) ? 3 : 1) : 0;
}

/**
 * Reports a session's requests: each prompt and turn, its tool calls and their waits, its
 * compactions, and a turn's output tokens where no store counted the turn before (traces.ts).
 */
export function readSession(session: Json, sessionId: string, ev: SessionEvents, cwd: string | undefined): void {
  ev.meta({ ...(cwd ? { cwd } : {}), hosted: true });
  const created = session.creationDate;
  if (typeof created === 'number' && created > 0) ev.activity(created);
  const requests = Array.isArray(session.requests) ? session.requests : [];
  requests.forEach((raw, i) => {
    const r = obj(raw);
    if (!r) return ev.skipped('unknown_shape');
    const ts = typeof r.timestamp === 'number' && r.timestamp > 0 ? r.timestamp : undefined;
    if (ts === undefined) return ev.skipped('unknown_shape');
    // Keys of the session's: a request's id is unique in its session.
    const id = `${sessionId}:${str(r.requestId) ?? i}`;
    const model = modelOf(r);
    if (model) ev.meta({ model });
    ev.activity(ts);
    if (ev.firstTime(`prompt:${id}`)) {
      ev.turnStarted(ts);
      ev.prompt(ts);
    }
    const state = stateOf(r);
    readParts(r, sessionId, state === NEEDS_INPUT, ev);
    const result = obj(r.result);
    const metadata = obj(result?.metadata);
    const summaries = Array.isArray(metadata?.summaries) ? metadata.summaries : [];
    summaries.forEach((s, n) => {
      if (ev.firstTime(`compaction:${id}:${str(obj(s)?.toolCallRoundId) ?? n}`)) ev.compaction();
    });
    const outcome = OUTCOMES[state];
    if (!outcome) return;
    const completed = obj(r.modelState)?.completedAt;
    const end =
      typeof completed === 'number' && completed > 0 ? completed : ts + num(obj(result?.timings)?.totalElapsed);
    ev.activity(end);
    const output = metadata?.outputTokens;
    // The turn's key is the OTel database's (its chat session and turn index): the first to
    // count the turn counts it. Nothing claims it where the journal has nothing to count.
    if (output !== undefined && output !== null && ev.firstTime(`tokens:${sessionId}:${i}`)) {
      const usage: Usage = {
        input: 0,
        output: numberOf(output),
        cacheRead: 0,
        cacheWrite: 0,
        cacheWrite1h: 0,
        reasoning: 0,
      };
      const prompt = numberOf(metadata?.promptTokens);
      ev.usage(model ?? 'unknown', usage, Number.isFinite(prompt) ? prompt : 0, end, undefined, JOURNAL_UNSAID);
    }
    if (ev.firstTime(`end:${id}`)) ev.turnEnded(outcome, end);
  });
}

/** A request's tool calls: counted once each, and whether each still waits on the person. */
function readParts(r: Json, sessionId: string, needsInput: boolean, ev: SessionEvents): void {
  const parts = Array.isArray(r.response) ? r.response : [];
  for (const raw of parts) {
    const p = obj(raw);
    if (p?.kind !== 'toolInvocationSerialized') continue;
    const callId = str(p.toolCallId);
    const tool = str(p.toolId);
    if (!callId || !tool) {
      ev.skipped('unknown_shape');
      continue;
    }
    const source = obj(p.source);
    const call =
      source?.type === 'mcp'
        ? mcpTool(str(source.serverLabel) ?? str(source.label))
        : // A subagent's own calls (`subAgentInvocationId`) are calls of their tools, not subagents.
          classifyTool(tool, obj(p.toolSpecificData)?.kind === 'subagent');
    if (ev.firstTime(`call:${sessionId}:${callId}`)) ev.toolCall(callId, call);
    if (p.isComplete === true) {
      if (ev.firstTime(`done:${sessionId}:${callId}`)) ev.toolResult(callId, false, call);
    } else {
      // Not confirmed yet while the request waits on the person: the call waits for approval.
      ev.toolWaits(callId, needsInput && p.isConfirmed === undefined ? 'approval' : undefined);
    }
  }
}
