// Factory's Droid CLI: per session, in `sessions/<cwd with "/" as "-">/`, an append-only
// transcript `<id>.jsonl` and beside it `<id>.settings.json`, one JSON document rewritten whole
// that holds the session's settings and its token totals. Both feed the session `<id>`. The real
// CLI's files are in test/fixtures/captures/droid*.
//
// Tokens are in the settings only (the transcript has none): `tokenUsage` is cumulative over the
// session and its resumes, so its growth since the last read is counted. A subagent's tokens are
// in its caller's `childInclusiveTokenUsageBySessionId` (with those of its own subagents) and in
// its own session's `tokenUsage`. A subagent's transcript names its caller on its first line
// (`callingSessionId`, with the caller's `callingToolUseId`: Factory's droid-sdk-typescript,
// `SessionSummaryEventSchema`): its tokens then count for the caller, and its own settings count
// none. Where no transcript named a caller, whichever document is read first counts them, for its
// session, and the other never does. `inclusiveTokenUsage` (own + children) is not read: it
// repeats both.
//
// `~/.factory/settings.json` (the user's settings, with API keys) is never read: the root is the
// sessions folder, and only its project folders are listed.

import { basename } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import {
  addUsage,
  maxUsage,
  minusUsage,
  plausibleUsage,
  ZERO_USAGE,
  type TurnOutcome,
  type Usage,
} from '../../session/types.js';
import { documentObject } from '../document.js';
import { num, numberOf, obj, str, time, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { classifyTool } from './tools.js';
import { droid as where } from './where.js';

export interface DroidState {
  /** Transcript: the time of the last timed record (turn outcomes have none). */
  lastTs: number;
  /**
   * Settings: per session whose tokens this document carries (its own, its subagents'), what was
   * counted so far, or false where another session's document counts them.
   */
  counted: Record<string, Usage | false>;
  /** Settings: the session is a subagent (its transcript named its caller), decided at the first tokens. */
  subagent?: boolean;
}

const SETTINGS = '.settings.json';

function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(root)) {
    if (!project.isDirectory) continue;
    const entries = listDir(project.path);
    // Transcripts first: the session's working directory is known before its tokens count.
    for (const e of entries) {
      if (e.isFile && e.name.endsWith('.jsonl')) files.push({ path: e.path, sessionId: basename(e.name, '.jsonl') });
    }
    for (const e of entries) {
      if (e.isFile && e.name.endsWith(SETTINGS) && e.name.length > SETTINGS.length) {
        files.push({ path: e.path, sessionId: e.name.slice(0, -SETTINGS.length), document: true });
      }
    }
  }
  return files;
}

const OUTCOMES = new Map<string, TurnOutcome>([
  ['completed', 'completed'],
  ['model_request_rejected', 'failed'],
  ['model_provider_unavailable', 'failed'],
  ['error', 'failed'],
  // The person stopped the turn, refused a permission, or quit.
  ['cancelled', 'interrupted'],
  ['permission_rejected', 'interrupted'],
  ['process_exit', 'interrupted'],
]);

// What is read of a transcript record: the text of prompts and answers, tool inputs and outputs
// are passed over unread.
const BLOCK: Shape = { type: true, id: true, name: true, tool_use_id: true, is_error: true };
const RECORD: Shape = {
  type: true,
  id: true,
  timestamp: true,
  cwd: true,
  reason: true,
  callingSessionId: true,
  message: { role: true, visibility: true, modelId: true, content: BLOCK },
};

function readLine(line: Buffer, state: DroidState, file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const ts = time(rec.text('timestamp'));
  const type = rec.text('type');
  if (type !== 'session_start' && type !== 'message' && type !== 'agent_turn_outcome') {
    // A record of another type says only that the session was active.
    if (ts !== undefined) ev.activity(ts);
    if (ts === undefined || type === undefined) ev.skipped('unknown_shape');
    return;
  }
  if (type === 'session_start') {
    // A subagent: read before its settings (transcripts are listed first), which then count nothing.
    if (rec.text('callingSessionId')) ev.firstTime(`subagent:${file.sessionId}`);
    const cwd = rec.text('cwd');
    return cwd ? ev.meta({ cwd }) : ev.skipped('unknown_shape');
  }
  if (type === 'agent_turn_outcome') return outcome(rec.text('reason'), state, ev);
  // The `context-<prompt id>` message of system reminders written before each prompt (only the
  // model sees it) is no prompt.
  const id = rec.text('id') ?? '';
  if (id.startsWith('context-')) {
    if (ts !== undefined) ev.activity(ts);
    return;
  }
  const msg = rec.object('message');
  const content = msg?.items('content');
  // A message with results is the tools' answer, not a prompt.
  if (content?.some((b) => b.text('type') === 'tool_result')) return toolResults(content, ts, state, ev);
  if (ts === undefined || !msg || !content) return ev.skipped('unknown_shape');
  ev.activity(ts);
  state.lastTs = ts;
  const role = msg.text('role');
  if (role === 'assistant') return answer(msg, content, ev);
  if (role !== 'user') return;
  // Not prompts: what only the model sees, and notices only the person sees (`BYOK Error: …`).
  const visibility = msg.text('visibility');
  if (visibility === 'llm_only' || visibility === 'user_only') return;
  if (!content.some((b) => b.text('type') === 'text')) return;
  if (id && !ev.firstTime(`prompt:${id}`)) return;
  ev.prompt(ts);
  // Every turn ends with an outcome record: a turn still open ended with the process.
  ev.turnStarted(ts, 'interrupted');
}

/** The results of tool calls, each with its own error flag (the outputs they carry are not decoded). */
function toolResults(content: Fields[], ts: number | undefined, state: DroidState, ev: SessionEvents): void {
  if (ts !== undefined) {
    ev.activity(ts);
    state.lastTs = ts;
  }
  let found = false;
  for (const b of content) {
    const callId = b.text('type') === 'tool_result' ? b.text('tool_use_id') : undefined;
    if (!callId) continue;
    found = true;
    // A forked session copies its parent's records.
    if (ev.firstTime(`result:${callId}`)) ev.toolResult(callId, b.isTrue('is_error'));
  }
  if (!found) ev.skipped('unknown_shape');
}

function answer(msg: Fields, content: Fields[], ev: SessionEvents): void {
  // BYOK models are named `custom:<model>-<index in the user's customModels>`, as written: the
  // model the provider was given is only in ~/.factory/settings.json, which is never read.
  const model = msg.text('modelId');
  if (model) ev.meta({ model });
  for (const b of content) {
    if (b.text('type') !== 'tool_use') continue;
    const id = b.text('id');
    const name = b.text('name');
    if (id && name && ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
  }
}

function outcome(reason: string | undefined, state: DroidState, ev: SessionEvents): void {
  const o = reason === undefined ? undefined : OUTCOMES.get(reason);
  // A reason this reader does not know still ends the turn: counted as skipped, the turn completed.
  if (!o) ev.skipped('unknown_shape');
  ev.turnEnded(o ?? 'completed', state.lastTs);
}

/** A `tokenUsage` block in the contract's semantics (Droid's input excludes cache reads and writes). */
function usageOf(u: Json): Usage {
  return {
    input: numberOf(u.inputTokens),
    output: numberOf(u.outputTokens),
    cacheRead: numberOf(u.cacheReadTokens),
    cacheWrite: numberOf(u.cacheCreationTokens),
    cacheWrite1h: 0,
    reasoning: numberOf(u.thinkingTokens),
  };
}

function readDocument(doc: Buffer, state: DroidState, file: SessionFile, ev: SessionEvents): void {
  const s = documentObject(doc, ev);
  if (!s) return;
  // The session's model now (also of a session whose every request failed).
  const model = str(s.model);
  if (model) ev.meta({ model });
  const own = obj(s.tokenUsage);
  // A session's settings are written before its first request: nothing to count yet.
  if (!own) return;
  const children = Object.entries(obj(s.childInclusiveTokenUsageBySessionId) ?? {});
  // A subagent's tokens, its own subagents' with them, are its caller's: the caller's settings
  // carry them all in one child entry, so none is claimed here. The key is seen already when its
  // transcript (whose first line was read by the time of the first tokens) named a caller.
  state.subagent ??= !ev.firstTime(`subagent:${file.sessionId}`);
  let delta = ZERO_USAGE;
  for (const [id, block] of [[file.sessionId, own] as const, ...children]) {
    const u = obj(block);
    if (!u) {
      ev.skipped('unknown_shape');
      continue;
    }
    let counted = state.counted[id];
    if (counted === undefined)
      counted = state.counted[id] = !state.subagent && ev.firstTime(`tokens:${id}`) ? ZERO_USAGE : false;
    if (counted === false) continue;
    const now = usageOf(u);
    // A damaged total is skipped: kept as the highest total, it would stop all later counting.
    if (!plausibleUsage(now)) {
      ev.skipped('implausible_value');
      continue;
    }
    delta = addUsage(delta, minusUsage(now, counted));
    state.counted[id] = maxUsage(now, counted);
  }
  // The last request's prompt (its cache writes are not recorded there).
  const last = obj(s.lastCallTokenUsage);
  const prompt = last ? num(last.inputTokens) + num(last.cacheReadTokens) : 0;
  if (delta.input + delta.output + delta.cacheRead + delta.cacheWrite > 0) {
    // The document has no time of its own: its growth was written when it was (its mtime), not
    // when it is read (a first read, or one after the exporter was down, would date a history today).
    ev.usage(
      model ?? 'unknown',
      delta,
      prompt || delta.input + delta.cacheRead + delta.cacheWrite,
      file.stat?.mtimeMs ?? Date.now(),
    );
  }
  if (prompt > 0) ev.context(model ?? 'unknown', prompt);
}

export const droid: LineReader<DroidState> = {
  ...where,
  kind: 'files',
  listFiles,
  initialState: () => ({ lastTs: 0, counted: {} }),
  readLine,
  readDocument,
};
