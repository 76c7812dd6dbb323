// Factory's Droid CLI: per session, in `sessions/<cwd with "/" as "-">/`, an append-only
// transcript `<id>.jsonl` and beside it `<id>.settings.json`, one JSON document rewritten whole
// that holds the session's settings and its token totals. Both feed the session `<id>`. The real
// CLI's files are in test/fixtures/captures/droid*.
//
// Tokens are in the settings only (the transcript has none): `tokenUsage` is cumulative over the
// session and its resumes, so its growth since the last read is counted. A subagent's tokens are
// in its parent's `childInclusiveTokenUsageBySessionId` and in its own session's `tokenUsage`:
// whichever of the two is read first counts them, for that session, and the other never does.
// `inclusiveTokenUsage` (own + children) is not read: it repeats both.
//
// `~/.factory/settings.json` (the user's settings, with API keys) is never read: the root is the
// sessions folder, and only its project folders are listed.

import { basename, join } from 'node:path';
import type { LineReader, SessionEvents, SessionFile } from '../reader.js';
import { addUsage, maxUsage, minusUsage, ZERO_USAGE, type TurnOutcome, type Usage } from '../../session/types.js';
import { jsonObject, lineActivity, nextType, num, obj, str, stringAfter, time, type Json } from '../fields.js';
import { listDir } from '../dir.js';
import { parseJson } from '../lines.js';
import { classifyTool } from './tools.js';

export interface DroidState {
  /** Transcript: a turn a prompt started has not ended yet. */
  turnOpen: boolean;
  /** Transcript: the time of the last timed record (turn outcomes have none). */
  lastTs: number;
  /**
   * Settings: per session whose tokens this document carries (its own, its subagents'), what was
   * counted so far, or false where another session's document counts them.
   */
  counted: Record<string, Usage | false>;
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
  ['model_request_rejected', 'failed'], ['model_provider_unavailable', 'failed'], ['error', 'failed'],
  // The person stopped the turn, refused a permission, or quit.
  ['cancelled', 'interrupted'], ['permission_rejected', 'interrupted'], ['process_exit', 'interrupted'],
]);

const ID = Buffer.from('"id":"');
const TOOL_RESULT = Buffer.from('"type":"tool_result"');
const TOOL_USE_ID = Buffer.from('"tool_use_id":"');
const IS_ERROR = Buffer.from('"is_error":');

function readLine(line: Buffer, state: DroidState, _file: SessionFile, ev: SessionEvents): void {
  const type = nextType(line, 0)?.value;
  if (type !== 'session_start' && type !== 'message' && type !== 'agent_turn_outcome') {
    if (lineActivity(line, ev) === undefined) ev.skipped(type ? 'unknown_shape' : 'parse_error');
    return;
  }
  if (type === 'message') {
    // The record's id is its first: the `context-<prompt id>` message of system reminders written
    // before each prompt (only the model sees it) is no prompt, and its text is not decoded.
    if (stringAfter(line, ID)?.startsWith('context-')) return void lineActivity(line, ev);
    if (line.includes(TOOL_RESULT)) return toolResults(line, state, ev);
  }
  const rec = parseJson(line);
  if (!rec) return ev.skipped('parse_error');
  if (type === 'session_start') {
    const cwd = str(rec.cwd);
    return cwd ? ev.meta({ cwd }) : ev.skipped('unknown_shape');
  }
  if (type === 'agent_turn_outcome') return outcome(rec, state, ev);
  const ts = time(rec.timestamp);
  const msg = obj(rec.message);
  const content = Array.isArray(msg?.content) ? msg.content.map(obj) : undefined;
  if (ts === undefined || !msg || !content) return ev.skipped('unknown_shape');
  ev.activity(ts);
  state.lastTs = ts;
  const id = str(rec.id) ?? '';
  if (msg.role === 'assistant') return answer(msg, content, ev);
  if (msg.role !== 'user') return;
  // Not prompts: what only the model sees, and notices only the person sees (`BYOK Error: …`).
  if (msg.visibility === 'llm_only' || msg.visibility === 'user_only') return;
  if (!content.some((b) => b?.type === 'text')) return;
  if (id && !ev.firstTime(`prompt:${id}`)) return;
  ev.prompt(ts);
  // Every turn ends with an outcome record: a turn still open ended with the process.
  endTurn(state, ev, 'interrupted', ts);
  state.turnOpen = true;
  ev.turnStarted(ts);
}

/**
 * The results of tool calls, read from the line's bytes: the outputs they carry are not decoded.
 * A message with results is the tools' answer, not a prompt.
 */
function toolResults(line: Buffer, state: DroidState, ev: SessionEvents): void {
  const ts = lineActivity(line, ev);
  if (ts !== undefined) state.lastTs = ts;
  let found = false;
  for (let at = line.indexOf(TOOL_USE_ID); at !== -1; ) {
    const callId = stringAfter(line, TOOL_USE_ID, at);
    const next = line.indexOf(TOOL_USE_ID, at + 1);
    // This result's flag: before the next result's id (an output's quotes are escaped).
    const flag = line.indexOf(IS_ERROR, at);
    const failed = flag !== -1 && (next === -1 || flag < next) && line.toString('latin1', flag + IS_ERROR.length, flag + IS_ERROR.length + 4) === 'true';
    // A forked session copies its parent's records.
    if (callId && ev.firstTime(`result:${callId}`)) ev.toolResult(callId, failed);
    found ||= Boolean(callId);
    at = next;
  }
  if (!found) ev.skipped('unknown_shape');
}

function answer(msg: Json, content: (Json | undefined)[], ev: SessionEvents): void {
  // BYOK models are named `custom:<model>-<index in the user's customModels>`, as written: the
  // model the provider was given is only in ~/.factory/settings.json, which is never read.
  const model = str(msg.modelId);
  if (model) ev.meta({ model });
  for (const b of content) {
    if (b?.type !== 'tool_use') continue;
    const id = str(b.id);
    const name = str(b.name);
    if (id && name && ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
  }
}

function endTurn(state: DroidState, ev: SessionEvents, outcome: TurnOutcome, ts: number): void {
  if (!state.turnOpen) return;
  state.turnOpen = false;
  ev.turnEnded(outcome, ts);
}

function outcome(rec: Json, state: DroidState, ev: SessionEvents): void {
  const o = OUTCOMES.get(String(rec.reason));
  // A reason this reader does not know still ends the turn: counted as skipped, the turn completed.
  if (!o) ev.skipped('unknown_shape');
  endTurn(state, ev, o ?? 'completed', state.lastTs);
}

/** A `tokenUsage` block in the contract's semantics (Droid's input excludes cache reads and writes). */
function usageOf(u: Json): Usage {
  return {
    input: num(u.inputTokens), output: num(u.outputTokens), cacheRead: num(u.cacheReadTokens),
    cacheWrite: num(u.cacheCreationTokens), cacheWrite1h: 0, reasoning: num(u.thinkingTokens),
  };
}

function readDocument(doc: Buffer, state: DroidState, file: SessionFile, ev: SessionEvents): void {
  const s = jsonObject(doc.toString('utf8'));
  if (!s) return ev.skipped('parse_error');
  // The session's model now (also of a session whose every request failed).
  const model = str(s.model);
  if (model) ev.meta({ model });
  const own = obj(s.tokenUsage);
  // A session's settings are written before its first request: nothing to count yet.
  if (!own) return;
  const children = Object.entries(obj(s.childInclusiveTokenUsageBySessionId) ?? {});
  let delta = ZERO_USAGE;
  for (const [id, block] of [[file.sessionId, own] as const, ...children]) {
    const u = obj(block);
    if (!u) {
      ev.skipped('unknown_shape');
      continue;
    }
    let counted = state.counted[id];
    if (counted === undefined) counted = state.counted[id] = ev.firstTime(`tokens:${id}`) ? ZERO_USAGE : false;
    if (counted === false) continue;
    const now = usageOf(u);
    delta = addUsage(delta, minusUsage(now, counted));
    state.counted[id] = maxUsage(now, counted);
  }
  // The last request's prompt (its cache writes are not recorded there).
  const last = obj(s.lastCallTokenUsage);
  const prompt = last ? num(last.inputTokens) + num(last.cacheReadTokens) : 0;
  if (delta.input + delta.output + delta.cacheRead + delta.cacheWrite > 0) {
    // The document has no time of its own: its growth happened since the previous read, now.
    ev.usage(model ?? 'unknown', delta, prompt || delta.input + delta.cacheRead + delta.cacheWrite, Date.now());
  }
  if (prompt > 0) ev.context(model ?? 'unknown', prompt);
}

export const droid: LineReader<DroidState> = {
  harness: 'droid',
  defaultRoots: (_env, home) => [join(home, '.factory', 'sessions')],
  watchPaths: (root) => [root],
  listFiles,
  initialState: () => ({ turnOpen: false, lastTs: 0, counted: {} }),
  readLine,
  readDocument,
};
