// Qwen Code chats: `projects/<cwd slug>/chats/<session id>.jsonl`, one ChatRecord per line
// (`{uuid, parentUuid, sessionId, timestamp, type, cwd, gitBranch, ...}`), read alike in the 0.15
// and the 0.24 shapes. The real CLI's files are in test/fixtures/captures/qwen-code*.
//
// Tokens come from `ui_telemetry` records of `qwen-code.api_response` events only: the CLI writes
// one per API response, for the main agent and for every subagent (a background subagent such as
// the memory extractor writes nothing else), and replays them for its own /stats on resume.
// Assistant records repeat the main agent's usage: they give context use, tool calls and turn ends.
// `~/.qwen/usage_record.jsonl` (0.24+) is not read: its line per CLI run totals the same requests
// again (counting it too would count each twice), only once the process exits, without times.

import { basename, join } from 'node:path';
import type { Reader, SessionEvents, SessionFile } from '../reader.js';
import { usageFromPrompt, type RegistryEntry, type TurnOutcome, type Usage } from '../../session/types.js';
import { countUnifiedDiff, jsonObject, lineActivity, nextType, num, obj, planOf, str, time, valueEnd, type Json } from '../fields.js';
import { listDir, readText } from '../dir.js';
import { parseJson, parseJsonValue } from '../lines.js';
import { classifyTool } from './tools.js';

export interface QwenState {
  /** A turn a prompt of this file started has not ended yet. */
  turnOpen: boolean;
  /** Failed attempts of the main agent's current request, which the CLI may still retry. */
  failedAttempts: number;
}

// The CLI retries a request answered 429 or 5xx until this many attempts in all (retryWithBackoff's
// default); any other failure, or the last attempt's, ends the turn. Only `api_error` records say so.
const ATTEMPTS = 7;

function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  const roots = [env.QWEN_RUNTIME_DIR, env.QWEN_HOME, join(home, '.qwen')].filter((r): r is string => Boolean(r));
  return [...new Set(roots)];
}

function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(join(root, 'projects'))) {
    if (!project.isDirectory) continue;
    for (const e of listDir(join(project.path, 'chats'))) {
      if (e.isFile && e.name.endsWith('.jsonl')) files.push({ path: e.path, sessionId: basename(e.name, '.jsonl') });
    }
  }
  return files;
}

const SUBTYPE = Buffer.from('"subtype":"');
const EVENT_NAME = Buffer.from('"event.name":"');
const UUID = Buffer.from('"uuid":"');
const TOOL_CALL_RESULT = Buffer.from('"toolCallResult":');

/** The short string value after `marker` (a structural `"key":"`), read from the line's bytes. */
function stringAfter(line: Buffer, marker: Buffer): string | undefined {
  const at = line.indexOf(marker);
  if (at === -1) return undefined;
  const from = at + marker.length;
  const to = line.indexOf(34, from);
  return to === -1 || to - from > 64 ? undefined : line.toString('latin1', from, to);
}

function readLine(line: Buffer, state: QwenState, _file: SessionFile, ev: SessionEvents): void {
  // The record's own type is the line's first: the envelope before it holds only strings.
  switch (nextType(line, 0)?.value) {
    case 'user':
    case 'assistant':
      return message(line, state, ev);
    case 'tool_result':
      return toolResult(line, ev);
    case 'system':
      return system(line, state, ev);
    default:
      lineActivity(line, ev);
  }
}

/** Decodes a record and reports what every record says: its time and where the session runs. */
function decode(line: Buffer, ev: SessionEvents): { rec: Json; ts: number } | undefined {
  const rec = parseJson(line);
  if (!rec) {
    ev.skipped('parse_error');
    return undefined;
  }
  const ts = time(rec.timestamp);
  if (ts !== undefined) ev.activity(ts);
  const cwd = str(rec.cwd);
  if (cwd) ev.meta({ cwd, gitBranch: str(rec.gitBranch) || undefined });
  return { rec, ts: ts ?? Date.now() };
}

function endTurn(state: QwenState, ev: SessionEvents, outcome: TurnOutcome, ts: number): void {
  if (!state.turnOpen) return;
  state.turnOpen = false;
  state.failedAttempts = 0;
  ev.turnEnded(outcome, ts);
}

function message(line: Buffer, state: QwenState, ev: SessionEvents): void {
  const d = decode(line, ev);
  if (!d) return;
  const { rec, ts } = d;
  const msg = obj(rec.message);
  const parts = Array.isArray(msg?.parts) ? msg.parts.map(obj) : undefined;
  if (!parts) return ev.skipped('unknown_shape');
  // A subagent's records (inline, as a side chain): its tool calls count for the session, its
  // task and answers are not the person's prompts or the session's turns.
  const subagent = rec.isSidechain === true || typeof rec.agentId === 'string';
  if (rec.type === 'user') {
    if (!subagent) prompt(rec, parts, ts, state, ev);
    return;
  }
  let calls = 0;
  for (const p of parts) {
    const call = obj(p?.functionCall);
    if (!call) continue;
    calls++;
    const id = str(call.id);
    const name = str(call.name);
    // A branched session copies its parent's records, call ids included.
    if (id && name && ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
    // todo_write carries the whole plan each time.
    const plan = name === 'todo_write' && !subagent ? planOf(obj(call.args)?.todos) : undefined;
    if (plan) ev.todos(plan);
  }
  if (subagent) return;
  const model = str(rec.model);
  const prompted = num(obj(rec.usageMetadata)?.promptTokenCount);
  if (model) ev.meta({ model });
  // What Qwen Code shows as context use: the last request's prompt, cached part included.
  if (model && prompted) ev.context(model, prompted, num(rec.contextWindowSize) || undefined);
  // The turn's final answer: text (not only thoughts) and no tool left to run.
  if (calls === 0 && parts.some((p) => typeof p?.text === 'string' && p.thought !== true)) endTurn(state, ev, 'completed', ts);
}

function prompt(rec: Json, parts: (Json | undefined)[], ts: number, state: QwenState, ev: SessionEvents): void {
  // Other user records (notifications, cron, goal runtime) are not typed by the person; a
  // mid-turn message is, while the turn runs.
  const midTurn = rec.subtype === 'mid_turn_user_message';
  if ((rec.subtype !== undefined && !midTurn) || !parts.some((p) => typeof p?.text === 'string')) return;
  const uuid = str(rec.uuid);
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  if (midTurn) return;
  // The CLI takes one prompt at a time: a turn still open was cut short (or gave up after errors).
  endTurn(state, ev, state.failedAttempts > 0 ? 'failed' : 'interrupted', ts);
  state.turnOpen = true;
  state.failedAttempts = 0;
  ev.turnStarted(ts);
}

/** A tool's result, decoding only its `toolCallResult` (the output in `message` is skipped). */
function toolResult(line: Buffer, ev: SessionEvents): void {
  lineActivity(line, ev);
  const at = line.indexOf(TOOL_CALL_RESULT);
  const end = at === -1 ? -1 : valueEnd(line, at + TOOL_CALL_RESULT.length);
  const r = end === -1 ? undefined : obj(parseJsonValue(line.subarray(at + TOOL_CALL_RESULT.length, end)));
  const id = str(r?.callId);
  if (!r || !id) return ev.skipped('unknown_shape');
  // `cancelled`: the person rejected the call, or it was aborted.
  ev.toolResult(id, r.status === 'error' || r.status === 'cancelled');
  // An edit's display is a file diff; its stats count the model's lines, not the person's edits.
  const display = obj(r.resultDisplay);
  const stat = obj(display?.diffStat);
  const diff = str(display?.fileDiff);
  const n = stat ? { added: num(stat.model_added_lines), removed: num(stat.model_removed_lines) } : diff ? countUnifiedDiff(diff) : undefined;
  if (n && (n.added > 0 || n.removed > 0)) ev.lines(n.added, n.removed);
}

function system(line: Buffer, state: QwenState, ev: SessionEvents): void {
  const subtype = stringAfter(line, SUBTYPE);
  if (subtype === 'ui_telemetry') {
    const name = stringAfter(line, EVENT_NAME);
    if (name === 'qwen-code.api_response' || name === 'qwen-code.api_error') return telemetry(line, state, ev);
  } else if (subtype === 'turn_result') {
    return turnResult(line, state, ev);
  } else if (subtype === 'chat_compression') {
    const uuid = stringAfter(line, UUID);
    if (!uuid || ev.firstTime(`compaction:${uuid}`)) ev.compaction();
  }
  lineActivity(line, ev);
}

/** An API response's usage in the metric contract's semantics. */
function usageOf(e: Json): Usage {
  // The prompt count includes cached tokens (Gemini semantics); no cache write is recorded.
  const cacheRead = num(e.cached_content_token_count);
  const reasoning = num(e.thoughts_token_count);
  // OpenAI-compatible and Qwen OAuth outputs include reasoning, Gemini's do not (the CLI's own rule).
  const included = e.auth_type === 'openai' || e.auth_type === 'qwen-oauth';
  return usageFromPrompt(num(e.input_token_count), num(e.output_token_count) + (included ? 0 : reasoning), cacheRead, 0, reasoning);
}

function telemetry(line: Buffer, state: QwenState, ev: SessionEvents): void {
  const d = decode(line, ev);
  if (!d) return;
  const e = obj(obj(d.rec.systemPayload)?.uiEvent);
  if (!e) return ev.skipped('unknown_shape');
  const model = str(e.model) ?? 'unknown';
  // Requests of subagents (foreground or background) name them; they do not decide the turn.
  const main = e.subagent_name === undefined;
  if (main) ev.meta({ model });
  if (e['event.name'] === 'qwen-code.api_error') {
    if (!main) return;
    const status = num(e.status_code);
    const retried = status === 429 || (status >= 500 && status < 600);
    if (++state.failedAttempts >= ATTEMPTS || !retried) endTurn(state, ev, 'failed', d.ts);
    return;
  }
  if (main) state.failedAttempts = 0;
  // A branched session copies its parent's records, response ids included.
  const id = str(e.response_id);
  if (id && !ev.firstTime(`response:${id}`)) return;
  const u = usageOf(e);
  if (u.input + u.output + u.cacheRead > 0) ev.usage(model, u, num(e.input_token_count), d.ts);
}

const TURN_RESULTS = new Map<string, TurnOutcome>([['completed', 'completed'], ['cancelled', 'interrupted'], ['error', 'failed']]);

/** The settled outcome of a turn, which newer builds write (daemon sessions). */
function turnResult(line: Buffer, state: QwenState, ev: SessionEvents): void {
  const d = decode(line, ev);
  if (!d) return;
  const outcome = TURN_RESULTS.get(String(obj(d.rec.systemPayload)?.state));
  if (!outcome) return ev.skipped('unknown_shape');
  endTurn(state, ev, outcome, d.ts);
}

/**
 * `sessions/<pid>.json`: one file per interactive process (the inner worker), with the pid's
 * start as `<boot id>:<start ticks>`; it says nothing of what the process does, and stays
 * behind after a crash.
 */
function registry(root: string): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const e of listDir(join(root, 'sessions'))) {
    if (!e.isFile || !/^\d+\.json$/.test(e.name)) continue;
    const rec = jsonObject(readText(e.path) ?? '');
    const sessionId = str(rec?.sessionId);
    if (!rec || !sessionId) continue;
    const pid = typeof rec.pid === 'number' ? rec.pid : Number(e.name.slice(0, -5));
    const procStart = Number(str(rec.procStart)?.split(':').pop());
    entries.push({ sessionId, pid, ...(procStart > 0 ? { procStart } : {}) });
  }
  return entries;
}

export const qwenCode: Reader<QwenState> = {
  harness: 'qwen-code',
  // Qwen Code's usage records carry no cache-write count.
  unrecorded: ['cache_write'],
  defaultRoots,
  watchPaths: (root) => [join(root, 'projects')],
  listFiles,
  initialState: () => ({ turnOpen: false, failedAttempts: 0 }),
  readLine,
  registry,
};
