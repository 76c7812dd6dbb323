// Claude Code transcripts: one JSONL file per session (`projects/<slug>/<session>.jsonl`), one
// line per record. The real CLI's files are in test/fixtures/captures/claude-code*.

import { join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { minusUsage, plausibleUsage, type RegistryEntry, type Usage } from '../../session/types.js';
import { countPatchLines, obj, planOf, str } from '../fields.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { pidFiles } from '../pid-files.js';
import { isSubagentFile, listFiles } from './paths.js';
import { classifyTool } from './tools.js';
import { claudeCode as where } from './where.js';

export interface ClaudeState {
  /** A subagent transcript: its tokens and tools count for the parent; its turns do not. */
  subagent: boolean;
  /** Model seen so far (from answers or request records), so request records can be skipped. */
  model?: string;
  /**
   * The response the last answer line belonged to: whether it was new (not written before in
   * another file), the usage counted for it so far and the time of the line it was counted from
   * last (absent in states of earlier versions), and its usage as written (the raw bytes, to
   * recognize lines that repeat it).
   */
  lastMessage?: { id: string; fresh: boolean; counted?: Usage; at?: number; usage?: string };
}

// Records never needed: only their time is read.
const SKIP = new Set([
  'progress',
  'api-request-shape',
  'api-request-blob',
  'file-history-snapshot',
  'queue-operation',
  'last-prompt',
  'cost-state',
  'tools-used',
  'atis-latch',
]);

// Text a user record starts with when it is not a typed prompt.
const NOT_PROMPT = [
  '<command-name>',
  '<local-command-stdout>',
  '<local-command-caveat>',
  '<task-notification>',
  '<system-reminder>',
  'Caveat:',
  '[Request interrupted',
];

// What is read of a record, whatever its type (the type comes after the message): everything
// else (tool output, file contents, thinking, attachment bodies) is passed over unread.
const ORIGIN: Shape = { kind: true };
// The usage's counts, read where they are written (its raw text is kept too: lastMessage).
const USAGE: Shape = {
  input_tokens: true,
  output_tokens: true,
  cache_read_input_tokens: true,
  cache_creation_input_tokens: true,
  cache_creation: { ephemeral_1h_input_tokens: true, ephemeral_5m_input_tokens: true },
  output_tokens_details: { thinking_tokens: true },
};
const BLOCK: Shape = { type: true, id: true, name: true, input: true, tool_use_id: true, is_error: true, text: true };
const RECORD: Shape = {
  type: true,
  subtype: true,
  timestamp: true,
  uuid: true,
  cwd: true,
  gitBranch: true,
  isMeta: true,
  isCompactSummary: true,
  isApiErrorMessage: true,
  promptSource: true,
  origin: ORIGIN,
  message: { id: true, model: true, usage: USAGE, stop_reason: true, content: BLOCK },
  toolUseResult: { type: true, structuredPatch: true, content: true },
  attachment: { type: true, commandMode: true, origin: ORIGIN },
  params: { model: true },
};

function readLine(line: Buffer, state: ClaudeState, _file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const ts = rec.time('timestamp');
  if (ts !== undefined) ev.activity(ts);
  const type = rec.text('type');
  if (type === undefined) return ev.skipped('unknown_shape');
  if (SKIP.has(type) || (type === 'api-request' && state.model !== undefined)) return;
  if (type === 'assistant' && repeatedBlock(rec, state)) return;
  const cwd = rec.text('cwd');
  if (cwd) ev.meta({ cwd, gitBranch: rec.text('gitBranch') || undefined });
  switch (type) {
    case 'assistant':
      return assistant(rec, ts ?? Date.now(), state, ev);
    case 'user':
      return user(rec, ts ?? Date.now(), state, ev);
    case 'system':
      return system(rec, ts ?? Date.now(), state, ev);
    case 'attachment':
      return queuedPrompt(rec, ts ?? Date.now(), state, ev);
    case 'api-request': {
      const model = rec.object('params')?.text('model');
      if (model && !state.model) {
        state.model = model;
        ev.meta({ model });
      }
      return;
    }
  }
}

const isToolUse = (b: Fields) => b.text('type') === 'tool_use' || b.text('type') === 'server_tool_use';

/**
 * Another content block of the response the previous line belonged to, with the same usage and
 * no tool call: it adds nothing. (Claude Code writes a response as one line per block, each
 * repeating the response's id and usage.)
 */
function repeatedBlock(rec: Fields, state: ClaudeState): boolean {
  const last = state.lastMessage;
  const msg = rec.object('message');
  if (!last?.usage || !msg || msg.text('id') !== last.id || msg.raw('usage') !== last.usage) return false;
  return !(msg.items('content') ?? []).some(isToolUse);
}

function usageOf(u: Fields): Usage {
  const breakdown = u.object('cache_creation');
  const cacheWrite1h = breakdown?.count('ephemeral_1h_input_tokens') ?? 0;
  const cacheWrite = u.count('cache_creation_input_tokens');
  return {
    input: u.count('input_tokens'),
    output: u.count('output_tokens'),
    cacheRead: u.count('cache_read_input_tokens'),
    // Before 2.1.152 the total could be 0 while only the breakdown was reported.
    cacheWrite: cacheWrite === 0 ? (breakdown?.count('ephemeral_5m_input_tokens') ?? 0) + cacheWrite1h : cacheWrite,
    cacheWrite1h,
    reasoning: u.object('output_tokens_details')?.count('thinking_tokens') ?? 0,
  };
}

function assistant(rec: Fields, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const msg = rec.object('message');
  if (!msg) return ev.skipped('unknown_shape');
  const model = msg.text('model');
  if (rec.isTrue('isApiErrorMessage') || model === '<synthetic>') {
    // A locally written error answer: the request failed after its retries, the turn ends.
    if (!state.subagent) ev.turnEnded('failed', ts);
    return;
  }
  if (!model) return ev.skipped('unknown_shape');
  if (model !== state.model) {
    state.model = model;
    ev.meta({ model });
  }
  // One response is written as one line per content block (in a row), each repeating the usage;
  // early versions wrote streaming placeholders first. Count each response once, from its largest
  // record, with its tool calls; not at all when a side chain or a resumed session replays it.
  const id = msg.text('id');
  if (id && state.lastMessage?.id !== id)
    state.lastMessage = { id, fresh: ev.firstTime(`msg:${id}`), counted: undefined, at: undefined, usage: undefined };
  const last = id ? state.lastMessage! : undefined;
  const fresh = last?.fresh ?? true;
  if (last) last.usage = msg.raw('usage');
  const u = msg.object('usage');
  if (u) {
    const usage = usageOf(u);
    const prev = last?.counted;
    // A damaged count is skipped, and never kept as what the response counted.
    if (!plausibleUsage(usage)) {
      if (fresh) ev.skipped('implausible_value');
    } else if (fresh && (!prev || usage.output >= prev.output)) {
      // More of a response counted before: one request, of the time of this (its largest) line.
      const earlier = prev && { at: last.at ?? ts, usage: prev };
      if (last) Object.assign(last, { counted: usage, at: ts });
      ev.usage(
        model,
        prev ? minusUsage(usage, prev) : usage,
        usage.input + usage.cacheRead + usage.cacheWrite,
        ts,
        undefined,
        undefined,
        earlier,
      );
    }
    if (!state.subagent) ev.context(model, usage.input + usage.cacheRead + usage.cacheWrite);
  }
  // Its tool calls and plan, which no report sums, are not worked out for one.
  for (const b of fresh && !ev.usageOnly ? (msg.items('content') ?? []) : []) {
    if (!isToolUse(b)) continue;
    const toolId = b.text('id');
    const name = b.text('name');
    if (toolId && name) ev.toolCall(toolId, classifyTool(name));
    // TodoWrite carries the whole plan each time.
    const plan = name === 'TodoWrite' && !state.subagent ? planOf(obj(b.value('input'))?.todos) : undefined;
    if (plan) ev.todos(plan);
  }
  if (!state.subagent && msg.text('stop_reason') === 'end_turn') ev.turnEnded('completed', ts);
}

function user(rec: Fields, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const msg = rec.object('message');
  const blocks = msg?.items('content') ?? [];
  const results = blocks.filter((b) => b.text('type') === 'tool_result');
  // Which calls they answer, which no report sums: a result is only not a prompt for one.
  for (const r of ev.usageOnly ? [] : results) {
    const id = r.text('tool_use_id');
    if (id) ev.toolResult(id, r.isTrue('is_error'));
  }
  const result = rec.object('toolUseResult');
  if (result) lines(result, ev);
  if (results.length > 0 || state.subagent) return;

  const text = msg?.text('content') ?? blocks.find((b) => b.text('type') === 'text')?.text('text');
  if (text === undefined) return;
  if (text.startsWith('[Request interrupted')) return ev.turnEnded('interrupted', ts);
  if (rec.isTrue('isMeta') || rec.isTrue('isCompactSummary') || rec.text('promptSource') === 'system') return;
  if (rec.object('origin')?.text('kind') === 'task-notification') return;
  if (NOT_PROMPT.some((p) => text.startsWith(p))) return;
  // A resumed session may replay earlier lines with their original uuid: count a prompt once.
  const uuid = rec.text('uuid');
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
}

/** A prompt the person typed while the agent was working (`queued_command`, in prompt mode). */
function queuedPrompt(rec: Fields, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const a = rec.object('attachment');
  if (
    state.subagent ||
    a?.text('type') !== 'queued_command' ||
    (a.has('commandMode') && a.text('commandMode') !== 'prompt')
  )
    return;
  if (a.object('origin')?.text('kind') === 'task-notification') return;
  const uuid = rec.text('uuid');
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
}

/** Lines changed by an Edit/Write/MultiEdit result. */
function lines(result: Fields, ev: SessionEvents): void {
  if (ev.usageOnly) return;
  const patch = result.value('structuredPatch');
  const hunks = Array.isArray(patch) ? patch : [];
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    const c = countPatchLines(Array.isArray(obj(h)?.lines) ? (obj(h)!.lines as unknown[]) : []);
    added += c.added;
    removed += c.removed;
  }
  // A newly created file has no patch: all its lines are added.
  if (hunks.length === 0 && result.text('type') === 'create') added += result.lineCount('content') ?? 0;
  if (added > 0 || removed > 0) ev.lines(added, removed);
}

function system(rec: Fields, ts: number, state: ClaudeState, ev: SessionEvents): void {
  switch (rec.text('subtype')) {
    case 'turn_duration':
      if (!state.subagent) ev.turnEnded('completed', ts);
      return;
    case 'compact_boundary': {
      const uuid = rec.text('uuid');
      if (!uuid || ev.firstTime(`compact:${uuid}`)) ev.compaction();
      return;
    }
  }
}

/**
 * `sessions/<pid>.json`: one file per interactive process, rewritten on every change of what it
 * does (busy, idle, or waiting for a permission or an answer), left behind by a crash: whether
 * the process still runs is the process table's to say (pid and `procStart`).
 */
function registry(root: string): RegistryEntry[] {
  return pidFiles(join(root, 'sessions')).map(({ pid, sessionId, rec }) => {
    const status = str(rec.status);
    const procStart = Number(str(rec.procStart) ?? rec.procStart);
    const statusAt = rec.statusUpdatedAt;
    return {
      sessionId,
      pid,
      ...(Number.isFinite(procStart) && procStart > 0 ? { procStart } : {}),
      ...(status === 'busy' || status === 'idle' || status === 'waiting'
        ? { status, waitingFor: str(rec.waitingFor) }
        : {}),
      ...(typeof statusAt === 'number' && Number.isFinite(statusAt) && statusAt > 0 ? { statusAt } : {}),
    };
  });
}

export const claudeCode: LineReader<ClaudeState> = {
  ...where,
  kind: 'files',
  listFiles,
  // Every member from the start: an object that gains one later changes its shape, and the reader's
  // compiled code, made for the first, was thrown away and compiled again (in each thread).
  initialState: (file) => ({ subagent: isSubagentFile(file), model: undefined, lastMessage: undefined }),
  readLine,
  registry,
};
