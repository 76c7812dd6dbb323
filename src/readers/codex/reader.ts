// Codex CLI rollouts: `sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`, one line per
// `{timestamp, type, payload}` record. The real CLI's files are in test/fixtures/captures/codex.

import * as crypto from 'node:crypto';
import { join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolCall } from '../../session/types.js';
import { maxUsage, minusUsage, plausibleUsage, usageFromPrompt, type Usage } from '../../session/types.js';
import { countUnifiedDiff, jsonValue, lineCount, num, obj, planOf, str, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { builtinTool, doubleUnderscoreMcpTool, type ToolTable } from '../tools.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { codex as where, ROLLOUT } from './where.js';

export interface CodexState {
  model?: string;
  /** In a forked or subagent rollout: until when lines replay the parent's history (ms). */
  replayUntil?: number;
  /**
   * In a forked or subagent rollout, until its own first turn (a `turn_context` after the first
   * second): the lines replay the parent's history, also those written later than the first second.
   */
  prefix?: true;
  /** `total` is the replayed parent's: the rollout's own totals may or may not go on from it. */
  totalReplayed?: true;
  /** Prompts are `user_message` events in older versions, `UserMessage` items in newer ones. */
  promptRecord?: 'user_message' | 'UserMessage';
  /** Tool calls by call id, to name the tool whose output reports a failure. */
  calls: Record<string, ToolCall>;
  /** The highest cumulative token total counted so far. */
  total?: Usage;
  /** A subagent's parent thread: the session its tokens and tools count for (its turns do not). */
  parent?: string;
}

// Records worth reading, by record type, then payload type, then (for item_completed) item
// type; of everything else (messages, reasoning, world state) only the time is read.
const EVENTS = new Set([
  'token_count',
  'task_started',
  'task_complete',
  'turn_aborted',
  'user_message',
  'item_completed',
  'patch_apply_end',
  'mcp_tool_call_end',
  'context_compacted',
  'error',
]);
// Records of which a report sums nothing (tool calls, a patch's lines, a compaction): a report's
// read names none (no counter of theirs moves there, so no key of theirs would be kept).
const UNREPORTED_KINDS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'patch_apply_end',
  'mcp_tool_call_end',
  'context_compacted',
]);
const TURN_EVENTS = new Set([
  'task_started',
  'task_complete',
  'turn_aborted',
  'error',
  'user_message',
  'item_completed',
]);
const ITEMS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'function_call_output',
  'custom_tool_call_output',
]);

// A token count's usage, read where its counts are written.
const USAGE: Shape = {
  input_tokens: true,
  output_tokens: true,
  cached_input_tokens: true,
  cache_write_input_tokens: true,
  reasoning_output_tokens: true,
  total_tokens: true,
};

// What is read of a record, whatever its type: the large parts (base instructions, messages,
// reasoning, tool output) are passed over unread.
const RECORD: Shape = {
  timestamp: true,
  type: true,
  payload: {
    type: true,
    model: true,
    cwd: true,
    git: true,
    source: true,
    forked_from_id: true,
    item: { type: true },
    name: true,
    namespace: true,
    arguments: true,
    call_id: true,
    id: true,
    output: true,
    info: { total_token_usage: USAGE, last_token_usage: USAGE, model_context_window: true },
    rate_limits: true,
    error: true,
    changes: true,
    success: true,
    result: true,
  },
};

/** What a record is (its type, or its payload's or item's type), or undefined when it is not worth reading. */
function classify(type: string, p: Fields | undefined): string | undefined {
  switch (type) {
    case 'session_meta':
    case 'turn_context':
      return type;
    case 'response_item': {
      const item = p?.text('type');
      return item !== undefined && ITEMS.has(item) ? item : undefined;
    }
    case 'event_msg': {
      const event = p?.text('type');
      if (event === 'item_completed') return p?.object('item')?.text('type') === 'UserMessage' ? event : undefined;
      return event !== undefined && EVENTS.has(event) ? event : undefined;
    }
    default:
      return undefined;
  }
}

/** Rollouts under `sessions/` (by date) and `archived_sessions/` (flat). */
function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  const walk = (dir: string, depth: number, archived: boolean) => {
    for (const e of listDir(dir)) {
      const m = e.isFile ? ROLLOUT.exec(e.name) : null;
      if (m) files.push({ path: e.path, sessionId: m[1]!, ...(archived ? { archived } : {}) });
      else if (e.isDirectory && depth > 0) walk(e.path, depth - 1, archived);
    }
  };
  walk(join(root, 'sessions'), 3, false);
  walk(join(root, 'archived_sessions'), 0, true);
  return files;
}

const TOOLS: ToolTable = {
  kinds: {
    exec_command: 'execute',
    shell: 'execute',
    local_shell: 'execute',
    local_shell_call: 'execute',
    write_stdin: 'execute',
    apply_patch: 'edit',
    update_plan: 'plan',
    request_user_input: 'communicate',
    request_permissions: 'communicate',
    view_image: 'read',
    spawn_agent: 'agent',
    send_input: 'agent',
    wait: 'agent',
    close_agent: 'agent',
    web_search: 'search',
    web_search_call: 'search',
    tool_search: 'search',
  },
  // request_permissions asks the user for more permissions: an approval. A command that merely
  // asks to leave the sandbox may run without asking (the approval policy decides): whether it
  // waits shows only in the process table.
  waits: {
    request_user_input: 'question',
    request_permissions: 'approval',
    wait: 'subagents',
    spawn_agent: 'subagents',
  },
};

function classifyTool(name: string, namespace: string | undefined): ToolCall {
  // MCP tools are named `<server>__<tool>` (newer versions `mcp__<server>__<tool>`, or the tool's
  // name in an `mcp__<server>` namespace).
  const flat = namespace?.startsWith('mcp__') ? `${namespace.replace(/_+$/, '')}__${name}` : name;
  return doubleUnderscoreMcpTool(flat) ?? builtinTool(name, TOOLS);
}

// How outputs report an exit code: exec text, apply_patch text, older JSON metadata (as a string or not).
const EXIT = ['Process exited with code ', 'Exit code: ', '\\"exit_code\\":', '"exit_code":'].map((m) =>
  Buffer.from(m),
);

/** The exit code a tool output (its bytes from `from` to `to`) reports; 0 when it reports none. */
function exitCode(line: Buffer, from: number, to: number): number {
  const output = line.subarray(from, to);
  for (const marker of EXIT) {
    const at = output.indexOf(marker);
    if (at === -1) continue;
    let i = at + marker.length;
    while (output[i] === 32) i++;
    let j = i + (output[i] === 45 ? 1 : 0);
    while (output[j]! >= 48 && output[j]! <= 57) j++;
    return Number(output.toString('latin1', i, j)) || 0;
  }
  return 0;
}

/**
 * A tool's output (`function_call_output`, `custom_tool_call_output`): which call it answers and
 * whether it failed. Outputs are large and only these two facts count.
 */
function toolOutput(
  p: Fields,
  line: Buffer,
  file: SessionFile,
  ts: number | undefined,
  state: CodexState,
  ev: SessionEvents,
): void {
  if (ts !== undefined) ev.activity(ts);
  if (state.replayUntil !== undefined && (ts ?? Infinity) <= state.replayUntil) return;
  const callId = p.text('call_id');
  if (callId === undefined) {
    ev.record(recordKey(file, line)); // read again, it is no work left uncounted either
    return ev.skipped('unknown_shape');
  }
  // Whether it failed, and which call it closes, no report sums.
  if (ev.usageOnly) return;
  // MCP results report failures in their own event (mcp_tool_call_end), which closes the call.
  const mcp = state.calls[callId]?.tool.startsWith('mcp:') ?? false;
  if (!mcp) delete state.calls[callId];
  const output = p.span('output');
  const failed = !mcp && output !== undefined && exitCode(line, output.start, output.end) !== 0;
  // Only a failure moves a counter (tool errors): the record is named for it alone. Outputs are
  // the largest records, and most succeed: their bytes are not hashed for nothing.
  if (failed) ev.record(recordKey(file, line));
  ev.toolResult(callId, failed);
}

// One call where Node has it (20.12+): a Hash object per record cost more than the hashing.
const sha1 = crypto.hash
  ? (line: Buffer) => crypto.hash('sha1', line, 'base64')
  : (line: Buffer) => crypto.createHash('sha1').update(line).digest('base64');

/** Rollout records carry no id: a record is its thread and its bytes. */
const recordKey = (file: SessionFile, line: Buffer) => `${file.sessionId}:${sha1(line)}`;

/** `total_token_usage` in the metric contract's semantics (Codex input includes cache reads and writes). */
function usageOf(u: Fields): Usage {
  return usageFromPrompt(
    u.count('input_tokens'),
    u.count('output_tokens'),
    u.count('cached_input_tokens'),
    u.count('cache_write_input_tokens'),
    u.count('reasoning_output_tokens'),
  );
}

function windowName(minutes: number): string {
  if (minutes > 0 && minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes > 0 && minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

function rateLimits(rl: Json, ts: number, ev: SessionEvents): void {
  for (const key of ['primary', 'secondary'] as const) {
    const w = obj(rl[key]);
    const minutes = num(w?.window_minutes);
    if (!w || minutes === 0) continue;
    const resetsAt = num(w.resets_at) || (num(w.resets_in_seconds) ? ts / 1000 + num(w.resets_in_seconds) : undefined);
    ev.usageLimit(windowName(minutes), Math.min(1, num(w.used_percent) / 100), resetsAt);
  }
}

function readLine(line: Buffer, state: CodexState, file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const type = rec.text('type');
  const p = rec.object('payload');
  const at = rec.time('timestamp');
  const kind = type === undefined ? undefined : classify(type, p);
  // A rollout read again from its start (replaced by one with another beginning) counts nothing
  // twice: each record that may move a counter is named by its key.
  if (kind === 'function_call_output' || kind === 'custom_tool_call_output')
    return toolOutput(p!, line, file, at, state, ev);
  if (kind !== undefined && !(ev.usageOnly && UNREPORTED_KINDS.has(kind))) ev.record(recordKey(file, line));
  if (kind === undefined) {
    if (at !== undefined) ev.activity(at);
    if (type === undefined) ev.skipped('unknown_shape');
    return;
  }
  if (!p) return ev.skipped('unknown_shape');
  const ts = at ?? Date.now();
  // First, as it may say which session the rollout's records belong to.
  if (type === 'session_meta') sessionMeta(p, ts, state, ev);
  ev.activity(ts);
  const inFirstSecond = state.replayUntil !== undefined && ts <= state.replayUntil;
  // The rollout's own first turn (the parent's turn contexts are copied within the first second).
  if (
    state.prefix &&
    !inFirstSecond &&
    (type === 'turn_context' || (type === 'event_msg' && p.text('type') === 'task_started'))
  )
    state.prefix = undefined;
  const replay = inFirstSecond || state.prefix === true;
  switch (type) {
    case 'turn_context': {
      const model = p.text('model');
      if (model) state.model = model;
      ev.meta({ model, cwd: p.text('cwd') });
      return;
    }
    case 'response_item':
      return replay ? undefined : responseItem(p, state, ev);
    case 'event_msg':
      return event(p, ts, replay, file.sessionId, state, ev);
  }
}

function sessionMeta(p: Fields, ts: number, state: CodexState, ev: SessionEvents): void {
  const source = obj(p.value('source'));
  // A spawned subagent works for its parent's session, as Claude Code's subagents do.
  state.parent ??= str(obj(obj(obj(source?.subagent)?.thread_spawn))?.parent_thread_id);
  ev.meta({ cwd: p.text('cwd'), gitBranch: str(obj(p.value('git'))?.branch) });
  // A fork or a subagent starts by copying the parent's history, all written within its first
  // second: those lines were counted in the parent's own rollout.
  if (state.replayUntil === undefined && (source?.subagent !== undefined || p.text('forked_from_id'))) {
    state.replayUntil = ts + 1000;
    state.prefix = true;
  }
}

function responseItem(p: Fields, state: CodexState, ev: SessionEvents): void {
  if (ev.usageOnly) return; // a tool call, which no report sums
  const callId = p.text('call_id');
  const type = p.text('type');
  switch (type) {
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'web_search_call': {
      const name = p.text('name') ?? type;
      const call = classifyTool(name, p.text('namespace'));
      const id = callId ?? p.text('id') ?? `${name}@${Object.keys(state.calls).length}`;
      state.calls[id] = call;
      ev.toolCall(id, call);
      // update_plan carries the whole plan each time (a subagent's plan is its own).
      if (name === 'update_plan' && !state.parent) {
        // Decoded for this call alone: a call's arguments (a command, a patch) are read for nothing else.
        const plan = planOf(obj(jsonValue(p.text('arguments') ?? ''))?.plan);
        if (plan) ev.todos(plan);
      }
      // Web searches run on the server and have no output record.
      if (type === 'web_search_call') ev.toolResult(id, false);
      return;
    }
  }
}

function event(p: Fields, ts: number, replay: boolean, self: string, state: CodexState, ev: SessionEvents): void {
  const type = p.text('type');
  switch (type) {
    case 'token_count': {
      const info = p.object('info');
      const total = info?.object('total_token_usage');
      const now = total && usageOf(total);
      // A damaged total is skipped: kept as the highest total, it would stop all later counting.
      if (now && !plausibleUsage(now)) ev.skipped('implausible_value');
      else if (now) {
        // Totals are cumulative for the thread: count what exceeds the highest total counted. A
        // child's first own total below the replayed parent's does not go on from it (TRAE's).
        if (replay) state.totalReplayed = true;
        else if (state.totalReplayed) {
          state.totalReplayed = undefined;
          if (
            state.total &&
            (now.input + now.cacheRead < state.total.input + state.total.cacheRead || now.output < state.total.output)
          )
            delete state.total;
        }
        const prev = state.total;
        state.total = prev ? maxUsage(prev, now) : now;
        const last = info?.object('last_token_usage');
        const model = state.model ?? 'unknown';
        if (!replay) {
          const delta = prev ? minusUsage(now, prev) : now;
          if (delta.input + delta.output + delta.cacheRead + delta.cacheWrite > 0) {
            ev.usage(
              model,
              delta,
              num(last?.count('input_tokens')) || delta.input + delta.cacheRead + delta.cacheWrite,
              ts,
            );
          }
          const limit = num(info?.count('model_context_window')) || undefined;
          if (last)
            ev.context(
              model,
              num(last.count('total_tokens')) || num(last.count('input_tokens')) + num(last.count('output_tokens')),
              limit,
            );
        }
      }
      // Limits, which no report sums: not decoded for one.
      const rl = ev.usageOnly ? undefined : obj(p.value('rate_limits'));
      if (rl && !replay) rateLimits(rl, ts, ev);
      return;
    }
  }
  if (replay) return;
  // A subagent's turns and prompts are its parent's tool call, not the person's; while one runs,
  // its parent delegates, also after the parent's own turn ended.
  if (state.parent && TURN_EVENTS.has(String(type))) {
    if (type === 'task_started') ev.subagent(self, true);
    else if (type === 'task_complete' || type === 'turn_aborted' || type === 'error') ev.subagent(self, false);
    return;
  }
  switch (type) {
    case 'task_started':
      return ev.turnStarted(ts);
    case 'task_complete':
      return ev.turnEnded(p.value('error') ? 'failed' : 'completed', ts);
    case 'turn_aborted':
      return ev.turnEnded('interrupted', ts);
    case 'error':
      return ev.turnEnded('failed', ts);
    case 'user_message':
    case 'item_completed': {
      const kind = type === 'user_message' ? 'user_message' : p.object('item')?.text('type');
      if (kind !== 'user_message' && kind !== 'UserMessage') return;
      state.promptRecord ??= kind;
      if (state.promptRecord !== kind) return;
      ev.prompt(ts);
      // Versions before task_started was persisted mark a turn's start by the prompt alone.
      ev.turnStarted(ts);
      return;
    }
    case 'patch_apply_end': {
      if (ev.usageOnly) return; // its lines and its failure, which no report sums
      const changes = obj(p.value('changes')) ?? {};
      let added = 0;
      let removed = 0;
      for (const c of Object.values(changes).map(obj)) {
        if (!c) continue;
        const diff = str(c.unified_diff);
        const content = str(c.content);
        if (diff) {
          const n = countUnifiedDiff(diff);
          added += n.added;
          removed += n.removed;
        } else if (content) {
          const n = lineCount(content);
          if (c.type === 'delete') removed += n;
          else added += n;
        }
      }
      if (added || removed) ev.lines(added, removed);
      const id = p.text('call_id');
      if (p.raw('success') === 'false' && id) ev.toolResult(id, true, state.calls[id]);
      return;
    }
    case 'mcp_tool_call_end': {
      const id = p.text('call_id');
      const result = obj(p.value('result'));
      const call = id ? state.calls[id] : undefined;
      if (!id) return;
      delete state.calls[id];
      ev.toolResult(id, result?.Err !== undefined || obj(result?.Ok)?.isError === true, call);
      return;
    }
    case 'context_compacted':
      return ev.compaction();
  }
}

export const codex: LineReader<CodexState> = {
  ...where,
  kind: 'files',
  sessionOf: (file, state) => state.parent ?? file.sessionId,
  listFiles,
  // Every member from the start, and none deleted: an object that gains or loses one changes its
  // shape (one deleted, V8 keeps it as a dictionary), and the reader's compiled code is made again.
  initialState: () => ({
    calls: {},
    model: undefined,
    replayUntil: undefined,
    prefix: undefined,
    totalReplayed: undefined,
    promptRecord: undefined,
    total: undefined,
    parent: undefined,
  }),
  readLine,
};
