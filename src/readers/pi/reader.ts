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

import { basename } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolCall, Usage, UsagePart } from '../../session/types.js';
import { numberOf, obj, time, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { classifyTool } from './tools.js';
import { pi as where } from './where.js';

export interface PiState {
  /** Failed attempts since the turn's last good answer. */
  failedAttempts: number;
}

// pi retries a failed request whose error reads as transient (its `isRetryableError`) up to
// `retry.maxRetries` times (default 3): after this many failed attempts in a row it has given up.
const ATTEMPTS = 4;
const RETRYABLE =
  /overloaded|rate.?limit|usage.?limit|too many requests|\b(429|500|502|503|504)\b|service.?unavailable|server error|internal error|connection.?error|fetch failed|retry delay/i;

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

// What is read of an entry: the text of prompts and answers, tool arguments and outputs are
// passed over unread.
const RECORD: Shape = {
  type: true,
  id: true,
  timestamp: true,
  cwd: true,
  modelId: true,
  message: {
    role: true,
    model: true,
    usage: true,
    stopReason: true,
    errorMessage: true,
    toolCallId: true,
    toolName: true,
    isError: true,
    content: { type: true, id: true, name: true },
  },
};

function readLine(line: Buffer, state: PiState, _file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const ts = time(rec.text('timestamp'));
  const type = rec.text('type');
  if (type === undefined || !KNOWN.has(type)) {
    // An entry of another type (a thinking level change, a label) says only that the session was active.
    if (ts !== undefined) ev.activity(ts);
    if (ts === undefined || type === undefined) ev.skipped('unknown_shape');
    return;
  }
  if (ts === undefined) return ev.skipped('unknown_shape');
  ev.activity(ts);
  if (type === 'session') {
    const cwd = rec.text('cwd');
    if (cwd) ev.meta({ cwd });
  } else if (type === 'model_change') {
    const model = rec.text('modelId');
    if (model) ev.meta({ model });
  } else if (type === 'compaction') {
    if (ev.firstTime(`compaction:${rec.text('id')}:${ts}`)) ev.compaction();
  } else {
    message(rec, ts, state, ev);
  }
}

function message(rec: Fields, ts: number, state: PiState, ev: SessionEvents): void {
  const msg = rec.object('message');
  // Entry ids are 8 hex digits: with the entry's time they name one record, also in a fork's copy.
  const key = `${rec.text('id')}:${ts}`;
  switch (msg?.text('role')) {
    case 'user':
      if (!ev.firstTime(`prompt:${key}`)) return;
      ev.prompt(ts);
      // pi takes one prompt at a time: a turn still open was cut short, or gave up after errors.
      ev.turnStarted(ts, state.failedAttempts > 0 ? 'failed' : 'interrupted');
      state.failedAttempts = 0;
      return;
    case 'assistant':
      return answer(msg, key, ts, state, ev);
    case 'toolResult':
      return toolResult(msg, key, ev);
    default:
      // The person's own `!command`s, extension messages, summaries: not the model's work.
      if (!msg) ev.skipped('unknown_shape');
  }
}

/** A tool's result: which call it answers and whether it failed (the output it carries is not decoded). */
function toolResult(msg: Fields, key: string, ev: SessionEvents): void {
  const id = msg.text('toolCallId');
  if (!id) return ev.skipped('unknown_shape');
  if (!ev.firstTime(`result:${key}`)) return;
  const name = msg.text('toolName');
  ev.toolResult(id, msg.isTrue('isError'), name ? classifyTool(name) : undefined);
}

/**
 * What one pi-format answer counts, for pi and for OpenClaw (which stores pi's events): its usage
 * and its tool calls. `reasoning`: the reasoning part of output, where the harness records one.
 */
export function countAnswer(
  u: Json,
  content: Fields[],
  model: string,
  ts: number,
  ev: SessionEvents,
  classify: (name: string) => ToolCall,
  reasoning: number,
  unsaid?: readonly UsagePart[],
): void {
  const usage: Usage = {
    input: numberOf(u.input),
    output: numberOf(u.output),
    cacheRead: numberOf(u.cacheRead),
    cacheWrite: numberOf(u.cacheWrite),
    cacheWrite1h: 0,
    reasoning,
  };
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  // The harness prices requests (pi from its models.json, OpenClaw from its model catalog); zero
  // there means no price known: the list price.
  const cost = numberOf(obj(u.cost)?.total);
  // Not `> 0`: a count or cost that is no number (NaN) goes to the store, which skips and counts it.
  if (prompt + usage.output !== 0) {
    ev.usage(model, usage, prompt, ts, cost === 0 ? undefined : cost, unsaid);
    ev.context(model, prompt);
  }
  for (const block of content) {
    if (block.text('type') !== 'toolCall') continue;
    const id = block.text('id');
    const name = block.text('name');
    if (id && name) ev.toolCall(id, classify(name));
  }
}

function answer(msg: Fields, key: string, ts: number, state: PiState, ev: SessionEvents): void {
  const content = msg.items('content');
  const u = obj(msg.value('usage'));
  if (!content || !u) return ev.skipped('unknown_shape');
  const model = msg.text('model') ?? 'unknown';
  ev.meta({ model });
  if (ev.firstTime(`answer:${key}`)) {
    countAnswer(u, content, model, ts, ev, classifyTool, 0);
  }
  const stop = msg.text('stopReason');
  if (stop === 'error') {
    state.failedAttempts++;
    if (state.failedAttempts >= ATTEMPTS || !RETRYABLE.test(msg.text('errorMessage') ?? '')) ev.turnEnded('failed', ts);
    return;
  }
  state.failedAttempts = 0;
  // An answer after a turn ended as failed: pi was configured to retry more often, the turn goes
  // on (its failure stays counted).
  ev.turnReopened('failed');
  if (stop === 'aborted') ev.turnEnded('interrupted', ts);
  else if (stop !== 'toolUse') ev.turnEnded('completed', ts);
}

export const pi: LineReader<PiState> = {
  ...where,
  kind: 'files',
  // pi's usage has no reasoning count (it is inside output).
  unrecorded: ['reasoning'],
  listFiles,
  initialState: () => ({ failedAttempts: 0 }),
  readLine,
};
