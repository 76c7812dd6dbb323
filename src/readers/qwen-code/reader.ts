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
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { usageFromPrompt, type RegistryEntry, type TurnOutcome, type Usage } from '../../session/types.js';
import { countUnifiedDiff, num, numberOf, obj, planOf, str, time, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { pidFiles } from '../pid-files.js';
import { classifyTool } from './tools.js';
import { qwenCode as where } from './where.js';

export interface QwenState {
  /** Failed attempts of the main agent's current request, which the CLI may still retry. */
  failedAttempts: number;
}

// The CLI retries a request answered 429 or 5xx until this many attempts in all (retryWithBackoff's
// default); any other failure, or the last attempt's, ends the turn. Only `api_error` records say so.
const ATTEMPTS = 7;

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

// What is read of a record, whatever its type: answer text, tool output and file contents are
// passed over unread.
const PART: Shape = { text: true, thought: true, functionCall: { id: true, name: true, args: true } };
const RECORD: Shape = {
  type: true,
  subtype: true,
  timestamp: true,
  uuid: true,
  cwd: true,
  gitBranch: true,
  isSidechain: true,
  agentId: true,
  model: true,
  usageMetadata: true,
  contextWindowSize: true,
  message: { parts: PART },
  toolCallResult: { callId: true, status: true, resultDisplay: { diffStat: true, fileDiff: true } },
  systemPayload: { uiEvent: true, state: true },
};

function readLine(line: Buffer, state: QwenState, _file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const at = time(rec.text('timestamp'));
  if (at !== undefined) ev.activity(at);
  const type = rec.text('type');
  switch (type) {
    case 'user':
    case 'assistant':
      return message(rec, at, state, ev);
    case 'tool_result':
      return toolResult(rec, ev);
    case 'system':
      return system(rec, at, state, ev);
    case undefined:
      return ev.skipped('unknown_shape');
  }
}

/** What every record that counts says: where the session runs; and its time, now when it has none. */
function located(rec: Fields, at: number | undefined, ev: SessionEvents): number {
  const cwd = rec.text('cwd');
  if (cwd) ev.meta({ cwd, gitBranch: rec.text('gitBranch') || undefined });
  return at ?? Date.now();
}

/** Ends the open turn, if one is: the attempts that failed in it count no more. */
function endTurn(state: QwenState, ev: SessionEvents, outcome: TurnOutcome, ts: number): void {
  state.failedAttempts = 0;
  ev.turnEnded(outcome, ts);
}

function message(rec: Fields, at: number | undefined, state: QwenState, ev: SessionEvents): void {
  const ts = located(rec, at, ev);
  const parts = rec.object('message')?.items('parts');
  if (!parts) return ev.skipped('unknown_shape');
  // A subagent's records (inline, as a side chain): its tool calls count for the session, its
  // task and answers are not the person's prompts or the session's turns.
  const subagent = rec.isTrue('isSidechain') || rec.kind('agentId') === 'string';
  if (rec.text('type') === 'user') {
    if (!subagent) prompt(rec, parts, ts, state, ev);
    return;
  }
  let calls = 0;
  for (const p of parts) {
    const call = p.object('functionCall');
    if (!call) continue;
    calls++;
    const id = call.text('id');
    const name = call.text('name');
    // A branched session copies its parent's records, call ids included.
    if (id && name && ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
    // todo_write carries the whole plan each time.
    const plan = name === 'todo_write' && !subagent ? planOf(obj(call.value('args'))?.todos) : undefined;
    if (plan) ev.todos(plan);
  }
  if (subagent) return;
  const model = rec.text('model');
  const prompted = num(obj(rec.value('usageMetadata'))?.promptTokenCount);
  if (model) ev.meta({ model });
  // What Qwen Code shows as context use: the last request's prompt, cached part included.
  if (model && prompted) ev.context(model, prompted, num(rec.number('contextWindowSize')) || undefined);
  // The turn's final answer: text (not only thoughts) and no tool left to run.
  if (calls === 0 && parts.some((p) => p.kind('text') === 'string' && !p.isTrue('thought')))
    endTurn(state, ev, 'completed', ts);
}

function prompt(rec: Fields, parts: Fields[], ts: number, state: QwenState, ev: SessionEvents): void {
  // Other user records (notifications, cron, goal runtime) are not typed by the person; a
  // mid-turn message is, while the turn runs.
  const midTurn = rec.text('subtype') === 'mid_turn_user_message';
  if ((rec.has('subtype') && !midTurn) || !parts.some((p) => p.kind('text') === 'string')) return;
  const uuid = rec.text('uuid');
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  if (midTurn) return;
  // The CLI takes one prompt at a time: a turn still open was cut short (or gave up after errors).
  ev.turnStarted(ts, state.failedAttempts > 0 ? 'failed' : 'interrupted');
  state.failedAttempts = 0;
}

/** A tool's result, from its `toolCallResult` (the output in `message` is passed over). */
function toolResult(rec: Fields, ev: SessionEvents): void {
  const r = rec.object('toolCallResult');
  const id = r?.text('callId');
  if (!r || !id) return ev.skipped('unknown_shape');
  // `cancelled`: the person rejected the call, or it was aborted.
  const status = r.text('status');
  ev.toolResult(id, status === 'error' || status === 'cancelled');
  // An edit's display is a file diff; its stats count the model's lines, not the person's edits.
  const display = r.object('resultDisplay');
  const stat = obj(display?.value('diffStat'));
  const diff = display?.text('fileDiff');
  const n = stat
    ? { added: num(stat.model_added_lines), removed: num(stat.model_removed_lines) }
    : diff
      ? countUnifiedDiff(diff)
      : undefined;
  if (n && (n.added > 0 || n.removed > 0)) ev.lines(n.added, n.removed);
}

function system(rec: Fields, at: number | undefined, state: QwenState, ev: SessionEvents): void {
  switch (rec.text('subtype')) {
    case 'ui_telemetry': {
      const e = obj(rec.object('systemPayload')?.value('uiEvent'));
      const name = e?.['event.name'];
      if (name === 'qwen-code.api_response' || name === 'qwen-code.api_error')
        return telemetry(e!, located(rec, at, ev), state, ev);
      return;
    }
    case 'turn_result':
      return turnResult(rec, located(rec, at, ev), state, ev);
    case 'chat_compression': {
      const uuid = rec.text('uuid');
      if (!uuid || ev.firstTime(`compaction:${uuid}`)) ev.compaction();
      return;
    }
  }
}

/** An API response's usage in the metric contract's semantics. */
function usageOf(e: Json): Usage {
  // The prompt count includes cached tokens (Gemini semantics); no cache write is recorded.
  const cacheRead = numberOf(e.cached_content_token_count);
  const reasoning = numberOf(e.thoughts_token_count);
  // OpenAI-compatible and Qwen OAuth outputs include reasoning, Gemini's do not (the CLI's own rule).
  const included = e.auth_type === 'openai' || e.auth_type === 'qwen-oauth';
  return usageFromPrompt(
    numberOf(e.input_token_count),
    numberOf(e.output_token_count) + (included ? 0 : reasoning),
    cacheRead,
    0,
    reasoning,
  );
}

function telemetry(e: Json, ts: number, state: QwenState, ev: SessionEvents): void {
  const model = str(e.model) ?? 'unknown';
  // Requests of subagents (foreground or background) name them; they do not decide the turn.
  const main = e.subagent_name === undefined;
  if (main) ev.meta({ model });
  if (e['event.name'] === 'qwen-code.api_error') {
    if (!main) return;
    const status = num(e.status_code);
    const retried = status === 429 || (status >= 500 && status < 600);
    if (++state.failedAttempts >= ATTEMPTS || !retried) endTurn(state, ev, 'failed', ts);
    return;
  }
  if (main) state.failedAttempts = 0;
  // A branched session copies its parent's records, response ids included.
  const id = str(e.response_id);
  if (id && !ev.firstTime(`response:${id}`)) return;
  const u = usageOf(e);
  // Not `> 0`: a count that is no number (NaN) goes to the store, which skips and counts it.
  if (u.input + u.output + u.cacheRead !== 0) ev.usage(model, u, numberOf(e.input_token_count), ts);
}

const TURN_RESULTS = new Map<string, TurnOutcome>([
  ['completed', 'completed'],
  ['cancelled', 'interrupted'],
  ['error', 'failed'],
]);

/** The settled outcome of a turn, which newer builds write (daemon sessions). */
function turnResult(rec: Fields, ts: number, state: QwenState, ev: SessionEvents): void {
  const outcome = TURN_RESULTS.get(String(rec.object('systemPayload')?.text('state')));
  if (!outcome) return ev.skipped('unknown_shape');
  endTurn(state, ev, outcome, ts);
}

/**
 * `sessions/<pid>.json`: one file per interactive process (the inner worker), with the pid's
 * start as `<boot id>:<start ticks>`; it says nothing of what the process does, and stays
 * behind after a crash.
 */
function registry(root: string): RegistryEntry[] {
  return pidFiles(join(root, 'sessions')).map(({ pid, sessionId, rec }) => {
    const procStart = Number(str(rec.procStart)?.split(':').pop());
    return { sessionId, pid, ...(procStart > 0 ? { procStart } : {}) };
  });
}

export const qwenCode: LineReader<QwenState> = {
  ...where,
  kind: 'files',
  // Qwen Code's usage records carry no cache-write count.
  unrecorded: ['cache_write'],
  listFiles,
  initialState: () => ({ failedAttempts: 0 }),
  readLine,
  registry,
};
