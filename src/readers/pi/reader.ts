// pi (`@mariozechner/pi-coding-agent`): one append-only JSONL file per session,
// `sessions/--<cwd with "/" as "-">--/<start time>_<session uuid>.jsonl` (session format 3). The
// real CLI's files are in test/fixtures/captures/pi.
//
// Every API answer is one assistant `message` line with its own usage, in the contract's
// semantics already (input without cache reads and writes, output with reasoning; no reasoning
// count), and nothing else repeats it: the tokens are the sum over the file. `--continue` appends
// to the same file. A forked session copies entries of its parent: usage, prompts and calls are
// deduplicated by entry id and time.
//
// pi writes no turn end. A turn is over when an answer asks for no tool (`stopReason` `stop`,
// `length`) or was `aborted`; a failed API attempt is an answer with `stopReason: "error"`, which
// pi retries itself: the turn fails only when its last answer did.

import { basename, join } from 'node:path';
import type { LineReader, SessionEvents, SessionFile } from '../reader.js';
import type { TurnOutcome, Usage } from '../../session/types.js';
import { lineActivity, nextType, num, obj, str, stringAfter, time, type Json } from '../fields.js';
import { listDir } from '../dir.js';
import { parseJson } from '../lines.js';
import { classifyTool } from './tools.js';

export interface PiState {
  /** A turn a prompt of this file started has not ended yet. */
  turnOpen: boolean;
  /** Failed attempts since the turn's last good answer. */
  failedAttempts: number;
  /** The turn was ended as failed; a later answer in it means pi retried more than we knew. */
  endedFailed: boolean;
}

// pi retries a failed request whose error reads as transient (its `isRetryableError`) up to
// `retry.maxRetries` times (default 3): after this many failed attempts in a row it has given up.
const ATTEMPTS = 4;
const RETRYABLE = /overloaded|rate.?limit|usage.?limit|too many requests|\b(429|500|502|503|504)\b|service.?unavailable|server error|internal error|connection.?error|fetch failed|retry delay/i;

function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  // The sessions folder only: its parent holds auth.json and models.json (API keys).
  const roots = [env.PI_CODING_AGENT_DIR, join(home, '.pi', 'agent')].filter((r): r is string => Boolean(r));
  return [...new Set(roots.map((r) => join(r, 'sessions')))];
}

/** The session uuid after the start time in `<time>_<uuid>.jsonl`. */
function sessionIdOf(name: string): string {
  const stem = basename(name, '.jsonl');
  return stem.slice(stem.lastIndexOf('_') + 1) || stem;
}

function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(root)) {
    if (!project.isDirectory) continue;
    for (const e of listDir(project.path)) {
      if (e.isFile && e.name.endsWith('.jsonl')) files.push({ path: e.path, sessionId: sessionIdOf(e.name) });
    }
  }
  return files;
}

const KNOWN = new Set(['session', 'model_change', 'message', 'compaction']);
const ID = Buffer.from('"id":"');
const ROLE = Buffer.from('"role":"');
const TOOL_CALL_ID = Buffer.from('"toolCallId":"');
const TOOL_NAME = Buffer.from('"toolName":"');
const IS_ERROR = Buffer.from('"isError":');

function readLine(line: Buffer, state: PiState, _file: SessionFile, ev: SessionEvents): void {
  // An entry's type is its first key, a message's role the first key of the message.
  const type = nextType(line, 0)?.value;
  if (!type || !KNOWN.has(type)) {
    if (lineActivity(line, ev) === undefined) ev.skipped(type ? 'unknown_shape' : 'parse_error');
    return;
  }
  if (type === 'message' && stringAfter(line, ROLE) === 'toolResult') return toolResult(line, ev);
  const rec = parseJson(line);
  if (!rec) return ev.skipped('parse_error');
  const ts = time(rec.timestamp);
  if (ts === undefined) return ev.skipped('unknown_shape');
  ev.activity(ts);
  if (type === 'session') {
    const cwd = str(rec.cwd);
    if (cwd) ev.meta({ cwd });
  } else if (type === 'model_change') {
    const model = str(rec.modelId);
    if (model) ev.meta({ model });
  } else if (type === 'compaction') {
    if (ev.firstTime(`compaction:${str(rec.id)}:${ts}`)) ev.compaction();
  } else {
    message(rec, ts, state, ev);
  }
}

function endTurn(state: PiState, ev: SessionEvents, outcome: TurnOutcome, ts: number): void {
  if (!state.turnOpen) return;
  state.turnOpen = false;
  state.endedFailed = outcome === 'failed';
  ev.turnEnded(outcome, ts);
}

function message(rec: Json, ts: number, state: PiState, ev: SessionEvents): void {
  const msg = obj(rec.message);
  // Entry ids are 8 hex digits: with the entry's time they name one record, also in a fork's copy.
  const key = `${str(rec.id)}:${ts}`;
  switch (msg?.role) {
    case 'user':
      if (!ev.firstTime(`prompt:${key}`)) return;
      ev.prompt(ts);
      // pi takes one prompt at a time: a turn still open was cut short, or gave up after errors.
      endTurn(state, ev, state.failedAttempts > 0 ? 'failed' : 'interrupted', ts);
      state.turnOpen = true;
      state.failedAttempts = 0;
      state.endedFailed = false;
      return ev.turnStarted(ts);
    case 'assistant':
      return answer(msg, key, ts, state, ev);
    default:
      // The person's own `!command`s, extension messages, summaries: not the model's work.
      if (!msg) ev.skipped('unknown_shape');
  }
}

/** A tool's result, read from the line's bytes: the output it carries is not decoded. */
function toolResult(line: Buffer, ev: SessionEvents): void {
  const ts = lineActivity(line, ev);
  const id = stringAfter(line, TOOL_CALL_ID);
  if (ts === undefined || !id) return ev.skipped('unknown_shape');
  if (!ev.firstTime(`result:${stringAfter(line, ID)}:${ts}`)) return;
  // The flag comes after the output (whose quotes are escaped): the last one is the message's.
  const at = line.lastIndexOf(IS_ERROR);
  const failed = at !== -1 && line.toString('latin1', at + IS_ERROR.length, at + IS_ERROR.length + 4) === 'true';
  const name = stringAfter(line, TOOL_NAME);
  ev.toolResult(id, failed, name ? classifyTool(name) : undefined);
}

function answer(msg: Json, key: string, ts: number, state: PiState, ev: SessionEvents): void {
  const content = Array.isArray(msg.content) ? msg.content.map(obj) : undefined;
  const u = obj(msg.usage);
  if (!content || !u) return ev.skipped('unknown_shape');
  const model = str(msg.model) ?? 'unknown';
  ev.meta({ model });
  if (ev.firstTime(`answer:${key}`)) {
    const usage: Usage = {
      input: num(u.input), output: num(u.output), cacheRead: num(u.cacheRead), cacheWrite: num(u.cacheWrite), cacheWrite1h: 0, reasoning: 0,
    };
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
    // pi prices requests from its models.json; zero there means no price known: the list price.
    const cost = num(obj(u.cost)?.total);
    if (prompt + usage.output > 0) {
      ev.usage(model, usage, prompt, ts, cost > 0 ? cost : undefined);
      ev.context(model, prompt);
    }
    for (const block of content) {
      if (block?.type !== 'toolCall') continue;
      const id = str(block.id);
      const name = str(block.name);
      if (id && name) ev.toolCall(id, classifyTool(name));
    }
  }
  const stop = msg.stopReason;
  if (stop === 'error') {
    state.failedAttempts++;
    if (state.failedAttempts >= ATTEMPTS || !RETRYABLE.test(str(msg.errorMessage) ?? '')) endTurn(state, ev, 'failed', ts);
    return;
  }
  state.failedAttempts = 0;
  if (state.endedFailed && !state.turnOpen) {
    // pi was configured to retry more often: the turn goes on (its failure stays counted).
    state.turnOpen = true;
    state.endedFailed = false;
    ev.turnReopened();
  }
  if (stop === 'aborted') endTurn(state, ev, 'interrupted', ts);
  else if (stop !== 'toolUse') endTurn(state, ev, 'completed', ts);
}

export const pi: LineReader<PiState> = {
  harness: 'pi',
  defaultRoots,
  watchPaths: (root) => [root],
  listFiles,
  initialState: () => ({ turnOpen: false, failedAttempts: 0, endedFailed: false }),
  readLine,
};
