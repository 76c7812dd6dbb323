// Continue CLI (`cn`): one JSON document per session, `sessions/<session uuid>.json` under
// `~/.continue` (`$CONTINUE_GLOBAL_DIR`), rewritten whole after each turn. `sessions/sessions.json`
// beside it is the index of all sessions (not read: each session's document says all it holds).
// The real CLI's files are in test/fixtures/captures/continue-cli.
//
// `history[]` holds one item per prompt and per answer; an answer's `message.usage` is the
// provider's raw Chat Completions usage (prompt_tokens includes cache reads and writes), its tool
// calls in `message.toolCalls`, their results in the item's `toolCallStates`. Nothing carries an
// id but the tool calls, and nothing a time: records are known again by what they hold (an
// answer by its usage, a prompt by its text's hash and how often it came before), and their time
// is the document's mtime. The session-level `usage` is not read: it leaves cache reads at 0.
//
// A session whose every request failed is not written at all; a request that failed before a
// retry succeeded leaves no trace: failed turns are not recorded. Nor is the git branch.

import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { type DocumentReader, type DocumentSteps, type SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { usageFromPrompt } from '../../session/types.js';
import { documentObject } from '../document.js';
import { numberOf, obj, str, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { classifyTool } from './tools.js';
import { continueCli as where } from './where.js';

export interface ContinueState {
  /** The answer whose end of turn was reported (its usage key): a document read again ends nothing again. */
  ended?: string;
}

// Sessions are named by their uuid: nothing else in the folder (the index `sessions.json`) is one.
const SESSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$/i;

// The sessions folder only: `~/.continue` also holds config.yaml, with API keys.
function listFiles(root: string): SessionFile[] {
  return listDir(root)
    .filter((e) => e.isFile && SESSION.test(e.name))
    .map((e) => ({ path: e.path, sessionId: basename(e.name, '.json'), document: true }));
}

// Tool call states that are over; `errored` and `canceled` did not do what was asked.
const FINISHED = new Map([
  ['done', false],
  ['errored', true],
  ['canceled', true],
]);

function* readDocument(doc: Buffer, state: ContinueState, file: SessionFile, ev: SessionEvents): DocumentSteps {
  const s = documentObject(doc, ev);
  if (!s) return;
  if (!Array.isArray(s.history)) return ev.skipped('unknown_shape');
  // The document's only time: when it was last rewritten.
  const ts = statSync(file.path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
  ev.activity(ts);
  const cwd = str(s.workspaceDirectory);
  if (cwd) ev.meta({ cwd });
  const session = str(s.sessionId) ?? file.sessionId;
  const seenPrompts = new Map<string, number>();
  let last: Json | undefined;
  for (const item of s.history) {
    yield;
    const msg = obj(obj(item)?.message);
    if (!msg) {
      ev.skipped('unknown_shape');
      continue;
    }
    last = msg;
    if (msg.role === 'user') prompt(msg, session, seenPrompts, ts, ev);
    else if (msg.role === 'assistant') answer(msg, obj(item)!, session, ts, ev);
  }
  // The turn is over once its last answer calls no tool (the CLI writes no turn end).
  if (last?.role !== 'assistant' || hasToolCalls(last)) return;
  const key = answerKey(last, session) ?? `${session}:${s.history.length}`;
  if (state.ended === key) return;
  state.ended = key;
  ev.turnEnded('completed', ts);
}

function prompt(msg: Json, session: string, seen: Map<string, number>, ts: number, ev: SessionEvents): void {
  const text = typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content ?? '');
  // The same words asked again are another prompt: their hash with how often they came before.
  const hash = createHash('sha1').update(text).digest('hex');
  const n = seen.get(hash) ?? 0;
  seen.set(hash, n + 1);
  if (!ev.firstTime(`prompt:${session}:${hash}:${n}`)) return;
  ev.prompt(ts);
  // A turn still open got no final answer: the CLI was stopped, or its request failed.
  ev.turnStarted(ts, 'interrupted');
}

function hasToolCalls(msg: Json): boolean {
  return Array.isArray(msg.toolCalls) && msg.toolCalls.length > 0;
}

/** An answer's tokens as the CLI copied them from the provider's usage object. */
function tokensOf(u: Json) {
  const prompt = numberOf(u.prompt_tokens);
  const cacheRead = numberOf(obj(u.prompt_tokens_details)?.cached_tokens);
  const cacheWrite = numberOf(obj(u.prompt_tokens_details)?.cache_write_tokens);
  const output = numberOf(u.completion_tokens);
  const reasoning = numberOf(obj(u.completion_tokens_details)?.reasoning_tokens);
  return { model: str(u.model), prompt, usage: usageFromPrompt(prompt, output, cacheRead, cacheWrite, reasoning) };
}

/**
 * What tells an answer from another: it has no id, and its usage, written once when it came, is
 * its own (a prompt grows with every answer of a session).
 */
function answerKey(msg: Json, session: string): string | undefined {
  const u = obj(msg.usage);
  if (!u) return undefined;
  const { model, prompt, usage } = tokensOf(u);
  return `${session}:${model ?? ''}:${prompt}:${usage.output}:${usage.cacheRead}:${usage.cacheWrite}:${usage.reasoning}`;
}

function answer(msg: Json, item: Json, session: string, ts: number, ev: SessionEvents): void {
  const u = obj(msg.usage);
  if (u) {
    const { model, prompt, usage } = tokensOf(u);
    if (model) ev.meta({ model });
    if (ev.firstTime(`usage:${answerKey(msg, session)!}`)) ev.usage(model ?? 'unknown', usage, prompt, ts);
    if (prompt > 0) ev.context(model ?? 'unknown', prompt);
  }
  for (const c of Array.isArray(msg.toolCalls) ? msg.toolCalls : []) {
    const call = obj(c);
    const id = str(call?.id);
    const name = str(obj(call?.function)?.name);
    if (!id || !name) {
      ev.skipped('unknown_shape');
      continue;
    }
    if (ev.firstTime(`call:${session}:${id}`)) ev.toolCall(id, classifyTool(name));
  }
  for (const st of Array.isArray(item.toolCallStates) ? item.toolCallStates : []) {
    const state = obj(st);
    const id = str(state?.toolCallId);
    const failed = FINISHED.get(str(state?.status) ?? '');
    if (id && failed !== undefined && ev.firstTime(`result:${session}:${id}`)) ev.toolResult(id, failed);
  }
}

export const continueCli: DocumentReader<ContinueState> = {
  ...where,
  kind: 'documents',
  listFiles,
  initialState: () => ({}),
  readDocument,
};
