// Gemini CLI sessions: `tmp/<project>/chats/session-*.jsonl` (0.39+), a header line, then message
// records re-appended whole whenever they change, `{"$set": …}` metadata updates and
// `{"$rewindTo": id}`; before 0.39 `session-*.json`, one JSON document rewritten whole. The real
// CLI's files are in test/fixtures/captures/gemini-cli.

import { join, sep } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { maxUsage, minusUsage, plausibleUsage, type TurnOutcome, type Usage } from '../../session/types.js';
import { documentObject } from '../document.js';
import { numberOf, obj, planOf, str, time, type Json } from '../fields.js';
import { parseJson } from '../lines.js';
import { configuredServers } from '../mcp.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { isSubagentFile, listFiles, projectRoot } from './paths.js';
import { changedLines, classifyTool, toolFailed } from './tools.js';
import { geminiCli as where } from './where.js';

export interface GeminiState {
  /** A subagent's file: its tokens and tools count for the parent session, its turns do not. */
  subagent: boolean;
  /** The session id the header names (a main file's name holds only its first 8 characters). */
  sessionId?: string;
  /** The project's folder, whose `.gemini/settings.json` may configure MCP servers. */
  cwd?: string;
  model?: string;
  /**
   * The latest answer with tokens, and the tokens counted for it: the CLI re-appends the latest
   * answer as it attaches tokens and tool calls, and only the latest one changes.
   */
  last?: { id: string; counted: Usage };
  /**
   * Set by this file's first prompt of its own, which the store does not know: before it, the
   * answers and tool responses a file repeats (a session migrated to JSONL, or rewritten) neither
   * end nor reopen the session's turn. Whether the turn is open is the store's. (States written
   * before may hold `answered` here: it means the same.)
   */
  turn?: 'open';
  /** The prompt still waiting for its first answer: if a rewrite of the message list drops it, its request failed. */
  prompt?: string;
  /** Documents: messages before this time (ms) were read already (the document is read whole on every change). */
  until?: number;
}

// What tells a line's kind. Message records and the header are then decoded whole; a tool
// response (a `user` record carrying a tool's output back to the model) is not.
const KIND: Shape = {
  $set: { messages: true, lastUpdated: true },
  $rewindTo: true,
  type: true,
  timestamp: true,
  content: { functionResponse: true },
};
const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'warning', 'error']);
// What a user message starts with when it is not a typed prompt (the CLI's own rule for what a
// resumed session shows): slash commands, and context the CLI adds.
const NOT_PROMPT = ['/', '?', '<session_context>', '<hook_context>'];

function readLine(line: Buffer, state: GeminiState, file: SessionFile, ev: SessionEvents): void {
  const kind = scanRecord(line, KIND);
  if (!kind) return ev.skipped('parse_error');
  if (kind.has('$set')) return metadataUpdate(kind, state, ev);
  // A rewind drops messages from the conversation; what they cost stays spent.
  if (kind.has('$rewindTo')) return;
  // Message records say their type; the header has none.
  const type = kind.text('type');
  if ((type === 'user' && kind.items('content')?.some((p) => p.has('functionResponse'))) || type === 'warning') {
    const ts = time(kind.text('timestamp'));
    if (ts !== undefined) ev.activity(ts);
    return type === 'user' ? continueTurn(state, ev) : undefined;
  }
  const rec = parseJson(line);
  if (!rec) return ev.skipped('parse_error');
  if (type === undefined) return header(rec, state, file, ev);
  message(rec, state, file, ev);
}

/** The first record (written again on resume), or a legacy document's top level. */
function header(rec: Json, state: GeminiState, file: SessionFile, ev: SessionEvents): void {
  const sessionId = str(rec.sessionId);
  if (!sessionId) return ev.skipped('unknown_shape');
  // First, as it names the session the file's records belong to.
  state.sessionId ??= sessionId;
  const start = time(rec.startTime);
  if (start !== undefined) ev.activity(start);
  const cwd = projectRoot(file, str(rec.projectHash));
  if (cwd) state.cwd = cwd;
  ev.meta({ cwd });
}

/**
 * `{"$set": {…}}`. Only a rewrite of the whole message list matters, and only while a prompt waits
 * for its first answer: when a request fails the CLI rolls the history back to before the prompt
 * and writes no error, so a list without the prompt is the failed turn.
 */
function metadataUpdate(kind: Fields, state: GeminiState, ev: SessionEvents): void {
  const set = kind.object('$set');
  if (state.prompt === undefined || !set?.has('messages')) return;
  const messages = set.value('messages');
  if (!Array.isArray(messages)) return ev.skipped('unknown_shape');
  droppedPrompt(messages, time(set.text('lastUpdated')), state, ev);
}

function droppedPrompt(messages: unknown[], ts: number | undefined, state: GeminiState, ev: SessionEvents): void {
  if (state.prompt === undefined || messages.some((m) => obj(m)?.id === state.prompt)) return;
  endTurn('failed', ts ?? Date.now(), state, ev);
}

function message(m: Json, state: GeminiState, file: SessionFile, ev: SessionEvents): void {
  const id = str(m.id);
  const ts = time(m.timestamp);
  if (!id || ts === undefined || !MESSAGE_TYPES.has(String(m.type))) return ev.skipped('unknown_shape');
  ev.activity(ts);
  switch (m.type) {
    case 'user':
      return userMessage(m, id, ts, state, ev);
    case 'gemini':
      return answer(m, id, ts, state, file, ev);
    case 'error':
      // An error the UI showed (an API error, an exhausted quota) ends the turn it happened in.
      return endTurn('failed', ts, state, ev);
    case 'info':
      if (m.content === 'Request cancelled.') endTurn('interrupted', ts, state, ev);
      return;
  }
}

function userMessage(m: Json, id: string, ts: number, state: GeminiState, ev: SessionEvents): void {
  const parts = Array.isArray(m.content) ? m.content : [];
  if (parts.some((p) => obj(p)?.functionResponse !== undefined)) return continueTurn(state, ev);
  // A subagent's prompts are its parent's instructions, not the person's.
  if (state.subagent) return;
  const text = textOf(m.content).trim();
  if (text === '' || NOT_PROMPT.some((p) => text.startsWith(p))) return;
  // A session migrated to JSONL, or rewritten, repeats its earlier messages.
  if (!ev.firstTime(`prompt:${key(state)}:${id}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
  state.turn = 'open';
  state.prompt = id;
}

/**
 * Tool calls, or their responses going back to the model: the turn goes on, also if an answer
 * seemed to end it (the CLI writes no turn end, and an answer's tool calls only once they ran).
 */
function continueTurn(state: GeminiState, ev: SessionEvents): void {
  if (state.turn) ev.turnReopened('completed');
}

/** The MCP servers the CLI is configured with: `settings.json` (`mcpServers`) of the user and of the project. */
function mcpServers(file: SessionFile, state: GeminiState): string[] {
  const at = file.path.lastIndexOf(`${sep}tmp${sep}`);
  const user = at === -1 ? [] : configuredServers(join(file.path.slice(0, at), 'settings.json'), 'mcpServers');
  return [...user, ...(state.cwd ? configuredServers(join(state.cwd, '.gemini', 'settings.json'), 'mcpServers') : [])];
}

function answer(m: Json, id: string, ts: number, state: GeminiState, file: SessionFile, ev: SessionEvents): void {
  const recorded = str(m.model);
  if (recorded && recorded !== state.model) {
    state.model = recorded;
    ev.meta({ model: recorded });
  }
  const model = recorded ?? state.model ?? 'unknown';
  const tokens = obj(m.tokens);
  if (tokens) usage(tokens, id, model, ts, state, ev);
  const calls = (Array.isArray(m.toolCalls) ? m.toolCalls : []).map(obj).filter((c): c is Json => c !== undefined);
  let newCalls = false;
  let servers: string[] | undefined;
  for (const c of calls) {
    const callId = str(c.id);
    const name = str(c.name);
    if (!callId || !name) {
      ev.skipped('unknown_shape');
      continue;
    }
    if (!ev.firstTime(`tool:${key(state)}:${callId}`)) continue;
    newCalls = true;
    // write_todos carries the whole plan each time.
    const plan = name === 'write_todos' && !state.subagent ? planOf(obj(c.args)?.todos) : undefined;
    if (plan) ev.todos(plan);
    // Calls are written once they finished: each is reported with its result.
    const call = classifyTool(name, name.startsWith('mcp_') ? (servers ??= mcpServers(file, state)) : []);
    ev.toolCall(callId, call);
    const failed = toolFailed(c);
    ev.toolResult(callId, failed, call);
    if (!failed && call.kind === 'edit') {
      const { added, removed } = changedLines(c);
      if (added || removed) ev.lines(added, removed);
    }
  }
  if (state.subagent) return;
  state.prompt = undefined;
  if (newCalls) continueTurn(state, ev);
  // An answer in text, without tool calls, ends the turn (a final answer always has text); unsure,
  // as the calls it asked for are written only once they ran (or were refused).
  else if (calls.length === 0 && textOf(m.content).trim() !== '' && state.turn) ev.turnEnded('completed', ts, true);
}

/**
 * Tokens of one API call, in the metric contract's semantics: Gemini's `input` (the prompt)
 * includes `cached` and excludes `tool` (tool-use prompt tokens, billed as input); `output`
 * excludes `thoughts`, which are billed as output.
 */
function usageOf(t: Json): Usage {
  const cached = numberOf(t.cached);
  return {
    input: Math.max(0, numberOf(t.input) - cached) + numberOf(t.tool),
    output: numberOf(t.output) + numberOf(t.thoughts),
    cacheRead: cached,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: numberOf(t.thoughts),
  };
}

/**
 * Counts an answer's tokens once: a copy of the latest answer counts only what grew since it was
 * counted; any other answer counts the first time its id is seen (a migrated or rewritten file
 * repeats the answers of the one before it).
 */
function usage(t: Json, id: string, model: string, ts: number, state: GeminiState, ev: SessionEvents): void {
  const now = usageOf(t);
  // Kept as what an answer counted, a damaged count would stop its later copies counting.
  if (!plausibleUsage(now)) return ev.skipped('implausible_value');
  const counted = state.last?.id === id ? state.last.counted : undefined;
  const delta = counted ? minusUsage(now, counted) : ev.firstTime(`tokens:${key(state)}:${id}`) ? now : undefined;
  state.last = { id, counted: counted ? maxUsage(counted, now) : now };
  const prompt = numberOf(t.input) + numberOf(t.tool);
  if (delta && delta.input + delta.output + delta.cacheRead > 0) ev.usage(model, delta, prompt, ts);
  if (!state.subagent) ev.context(model, prompt);
}

/** Ends the open turn, if any (a subagent's file has no prompt of its own, so no turn). */
function endTurn(outcome: TurnOutcome, ts: number, state: GeminiState, ev: SessionEvents): void {
  if (!state.turn) return;
  ev.turnEnded(outcome, ts);
  state.prompt = undefined;
}

/** The text of a message's content (a string or Gemini parts), thought parts left out. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (obj(p)?.thought === true ? '' : (str(obj(p)?.text) ?? ''))).join('');
}

/** The session id that scopes dedupe keys (message ids repeat across sessions). */
function key(state: GeminiState): string {
  return state.sessionId ?? '';
}

/**
 * A session before 0.39: `{sessionId, projectHash, startTime, messages: [...]}`, rewritten whole
 * on every change (the last message updated in place, new ones appended). Messages older than the
 * previous read's newest are skipped; the newest is read again, as tokens and tool calls are
 * attached to it after the fact (the dedupe of tokens and tool calls makes that safe).
 */
function readDocument(doc: Buffer, state: GeminiState, file: SessionFile, ev: SessionEvents): void {
  const rec = documentObject(doc, ev);
  if (!rec) return;
  if (!Array.isArray(rec.messages)) return ev.skipped('unknown_shape');
  header(rec, state, file, ev);
  const from = state.until ?? -Infinity;
  for (const item of rec.messages) {
    const m = obj(item);
    const ts = time(m?.timestamp);
    if (m && ts !== undefined && ts < from) continue;
    if (m) message(m, state, file, ev);
    else ev.skipped('unknown_shape');
    if (ts !== undefined && ts > (state.until ?? -Infinity)) state.until = ts;
  }
  droppedPrompt(rec.messages, time(rec.lastUpdated), state, ev);
}

export const geminiCli: LineReader<GeminiState> = {
  ...where,
  kind: 'files',
  // The Gemini API reports no cache writes (cache storage is billed by the hour instead).
  unrecorded: ['cache_write'],
  listFiles,
  initialState: (file) => ({ subagent: isSubagentFile(file) }),
  readLine,
  readDocument,
  // Subagent files belong to their parent (named by their folder); a main file to the session its header names.
  sessionOf: (file, state) => (state.subagent ? file.sessionId : (state.sessionId ?? file.sessionId)),
};
