// Claude Code transcripts: one JSONL file per session (`projects/<slug>/<session>.jsonl`), one
// line per record. The real CLI's files are in test/fixtures/captures/claude-code*.

import { join } from 'node:path';
import type { Reader, SessionEvents, SessionFile } from '../reader.js';
import { minusUsage, type RegistryEntry, type Usage } from '../../session/types.js';
import { listDir, readText } from '../dir.js';
import { countPatchLines, firstTypeOf, jsonObject, lineCount, lineActivity, num, obj, planOf, str, time, valueEnd, type Json } from '../fields.js';
import { parseJson, parseJsonValue } from '../lines.js';
import { defaultRoots, isSubagentFile, listFiles } from './paths.js';
import { classifyTool } from './tools.js';

export interface ClaudeState {
  /** A subagent transcript: its tokens and tools count for the parent; its turns do not. */
  subagent: boolean;
  /** Model seen so far (from answers or request records), so request records can be skipped. */
  model?: string;
  /**
   * The response the last answer line belonged to: whether it was new (not written before in
   * another file), the usage counted for it so far, and its usage as written (the raw bytes, to
   * recognize lines that repeat it).
   */
  lastMessage?: { id: string; fresh: boolean; counted?: Usage; usage?: string };
}

// Records never needed: skipped on their bytes, before anything is decoded.
const SKIP = new Set(['attachment', 'progress', 'api-request-shape', 'api-request-blob', 'file-history-snapshot',
  'queue-operation', 'last-prompt', 'cost-state', 'tools-used', 'atis-latch']);
// A prompt typed while the agent works is written as a `queued_command` attachment, whose type
// comes before the record's own.
const KNOWN = new Set([...SKIP, 'assistant', 'user', 'system', 'api-request', 'queued_command']);

// Text a user record starts with when it is not a typed prompt.
const NOT_PROMPT = ['<command-name>', '<local-command-stdout>', '<local-command-caveat>', '<task-notification>',
  '<system-reminder>', 'Caveat:', '[Request interrupted'];

function readLine(line: Buffer, state: ClaudeState, file: SessionFile, ev: SessionEvents): void {
  // The record's own type is the first known one: nested objects before it (an attachment's
  // body, a message's content blocks) have other types.
  const type = firstTypeOf(line, KNOWN);
  if (type === undefined || SKIP.has(type) || (type === 'api-request' && state.model !== undefined)) {
    // These records put their timestamp after their body.
    lineActivity(line, ev, true);
    return;
  }
  if (type === 'user' && toolResult(line, ev)) return;
  if (type === 'assistant' && repeatedBlock(line, state, ev)) return;
  const rec = parseJson(line);
  if (!rec) {
    ev.skipped('parse_error');
    return;
  }
  const ts = time(rec.timestamp);
  if (ts !== undefined) ev.activity(ts);
  const cwd = str(rec.cwd);
  if (cwd) ev.meta({ cwd, gitBranch: str(rec.gitBranch) || undefined });
  switch (rec.type) {
    case 'assistant': return assistant(rec, line, ts ?? Date.now(), state, ev);
    case 'user': return user(rec, ts ?? Date.now(), state, ev);
    case 'system': return system(rec, ts ?? Date.now(), state, ev);
    case 'attachment': return queuedPrompt(rec, ts ?? Date.now(), state, ev);
    case 'api-request': {
      const model = str(obj(rec.params)?.model);
      if (model && !state.model) {
        state.model = model;
        ev.meta({ model });
      }
      return;
    }
  }
}

const MESSAGE_ID = Buffer.from('"message":{"id":"');
const USAGE = Buffer.from('"usage":{');
const TOOL_USE = Buffer.from('"type":"tool_use"');

/**
 * Another content block of the response the previous line belonged to, with the same usage and
 * no tool call: it adds nothing, so it is not decoded. (Claude Code writes a response as one line
 * per block, each repeating the response's id and usage.)
 */
function repeatedBlock(line: Buffer, state: ClaudeState, ev: SessionEvents): boolean {
  const last = state.lastMessage;
  if (!last?.usage) return false;
  const at = line.indexOf(MESSAGE_ID);
  if (at === -1 || !line.subarray(at + MESSAGE_ID.length, at + MESSAGE_ID.length + last.id.length + 1).equals(Buffer.from(`${last.id}"`))) return false;
  if (usageBytes(line, at) !== last.usage || line.includes(TOOL_USE)) return false;
  lineActivity(line, ev, true);
  return true;
}

/** The `"usage":{…}` of an answer line as written. */
function usageBytes(line: Buffer, from: number): string | undefined {
  const at = line.indexOf(USAGE, from);
  const end = at === -1 ? -1 : valueEnd(line, at + USAGE.length - 1);
  return end === -1 ? undefined : line.toString('latin1', at, end);
}

const TOOL_USE_ID = Buffer.from('"tool_use_id":"');
const IS_ERROR = Buffer.from('"is_error":');
const RESULT = Buffer.from('"toolUseResult":');
const CREATED = Buffer.from('{"type":"create"');
const PATCH = Buffer.from('"structuredPatch":');

/**
 * A tool result read from its bytes, which are mostly the tool's output (a file, a command's
 * output, an edited file's old content): which call it answers, whether it failed, and the lines
 * an edit changed. The keys are searched in the order Claude Code writes them, so the line is
 * scanned about once. Returns false, having reported nothing, for what it leaves to the parser:
 * prompts, several results in one record, newly created files.
 */
function toolResult(line: Buffer, ev: SessionEvents): boolean {
  const at = line.indexOf(TOOL_USE_ID);
  if (at === -1) return false;
  const idStart = at + TOOL_USE_ID.length;
  const idEnd = line.indexOf(34, idStart);
  if (idEnd === -1) return false;
  const errorAt = line.indexOf(IS_ERROR, idEnd);
  const failed = errorAt !== -1 && line[errorAt + IS_ERROR.length] === 116; // "t" of true
  const afterError = errorAt === -1 ? idEnd : errorAt;
  const resultAt = line.indexOf(RESULT, afterError);
  if (line.subarray(afterError, resultAt === -1 ? line.length : resultAt).includes(TOOL_USE_ID)) return false;
  let changed: { added: number; removed: number } | undefined;
  if (resultAt !== -1) {
    const body = resultAt + RESULT.length;
    if (line.subarray(body, body + CREATED.length).equals(CREATED)) return false;
    const patchAt = line.indexOf(PATCH, body);
    if (patchAt !== -1) {
      const end = valueEnd(line, patchAt + PATCH.length);
      const hunks = end === -1 ? undefined : parseJsonValue(line.subarray(patchAt + PATCH.length, end));
      if (!Array.isArray(hunks)) return false;
      changed = patchLines(hunks);
    }
  }
  lineActivity(line, ev, true);
  ev.toolResult(line.toString('latin1', idStart, idEnd), failed);
  if (changed && (changed.added > 0 || changed.removed > 0)) ev.lines(changed.added, changed.removed);
  return true;
}

function usageOf(u: Json): Usage {
  const breakdown = obj(u.cache_creation);
  const cacheWrite1h = num(breakdown?.ephemeral_1h_input_tokens);
  return {
    input: num(u.input_tokens),
    output: num(u.output_tokens),
    cacheRead: num(u.cache_read_input_tokens),
    // Before 2.1.152 the total could be 0 while only the breakdown was reported.
    cacheWrite: num(u.cache_creation_input_tokens) || num(breakdown?.ephemeral_5m_input_tokens) + cacheWrite1h,
    cacheWrite1h,
    reasoning: num(obj(u.output_tokens_details)?.thinking_tokens),
  };
}

function assistant(rec: Json, line: Buffer, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const msg = obj(rec.message);
  if (!msg) return ev.skipped('unknown_shape');
  const model = str(msg.model);
  if (rec.isApiErrorMessage === true || model === '<synthetic>') {
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
  const id = str(msg.id);
  if (id && state.lastMessage?.id !== id) state.lastMessage = { id, fresh: ev.firstTime(`msg:${id}`) };
  const last = id ? state.lastMessage! : undefined;
  const fresh = last?.fresh ?? true;
  if (last) last.usage = usageBytes(line, 0);
  const u = obj(msg.usage);
  if (u) {
    const usage = usageOf(u);
    const prev = last?.counted;
    if (fresh && (!prev || usage.output >= prev.output)) {
      if (last) last.counted = usage;
      ev.usage(model, prev ? minusUsage(usage, prev) : usage, usage.input + usage.cacheRead + usage.cacheWrite, ts);
    }
    if (!state.subagent) ev.context(model, usage.input + usage.cacheRead + usage.cacheWrite);
  }
  const content = Array.isArray(msg.content) && fresh ? msg.content : [];
  for (const block of content) {
    const b = obj(block);
    if (!b || (b.type !== 'tool_use' && b.type !== 'server_tool_use')) continue;
    const toolId = str(b.id);
    const name = str(b.name);
    if (toolId && name) ev.toolCall(toolId, classifyTool(name));
    // TodoWrite carries the whole plan each time.
    const plan = name === 'TodoWrite' && !state.subagent ? planOf(obj(b.input)?.todos) : undefined;
    if (plan) ev.todos(plan);
  }
  if (!state.subagent && msg.stop_reason === 'end_turn') ev.turnEnded('completed', ts);
}

function user(rec: Json, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const msg = obj(rec.message);
  const content = msg?.content;
  const blocks = Array.isArray(content) ? content.map(obj).filter((b): b is Json => b !== undefined) : [];
  const results = blocks.filter((b) => b.type === 'tool_result');
  for (const r of results) {
    const id = str(r.tool_use_id);
    if (id) ev.toolResult(id, r.is_error === true);
  }
  const patch = obj(rec.toolUseResult);
  if (patch) lines(patch, ev);
  if (results.length > 0 || state.subagent) return;

  const text = typeof content === 'string' ? content : str(blocks.find((b) => b.type === 'text')?.text);
  if (text === undefined) return;
  if (text.startsWith('[Request interrupted')) return ev.turnEnded('interrupted', ts);
  if (rec.isMeta === true || rec.isCompactSummary === true || rec.promptSource === 'system') return;
  if (str(obj(rec.origin)?.kind) === 'task-notification') return;
  if (NOT_PROMPT.some((p) => text.startsWith(p))) return;
  // A resumed session may replay earlier lines with their original uuid: count a prompt once.
  const uuid = str(rec.uuid);
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
}

/** A prompt the person typed while the agent was working (`queued_command`, in prompt mode). */
function queuedPrompt(rec: Json, ts: number, state: ClaudeState, ev: SessionEvents): void {
  const a = obj(rec.attachment);
  if (state.subagent || a?.type !== 'queued_command' || (a.commandMode !== undefined && a.commandMode !== 'prompt')) return;
  if (str(obj(a.origin)?.kind) === 'task-notification') return;
  const uuid = str(rec.uuid);
  if (uuid && !ev.firstTime(`prompt:${uuid}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
}

/** Lines added and removed by the hunks of a `structuredPatch`. */
function patchLines(hunks: unknown[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    const c = countPatchLines(Array.isArray(obj(h)?.lines) ? (obj(h)!.lines as unknown[]) : []);
    added += c.added;
    removed += c.removed;
  }
  return { added, removed };
}

/** Lines changed by an Edit/Write/MultiEdit result. */
function lines(result: Json, ev: SessionEvents): void {
  const hunks = Array.isArray(result.structuredPatch) ? result.structuredPatch : [];
  let { added, removed } = patchLines(hunks);
  // A newly created file has no patch: all its lines are added.
  const created = result.type === 'create' ? str(result.content) : undefined;
  if (hunks.length === 0 && created) added += lineCount(created);
  if (added > 0 || removed > 0) ev.lines(added, removed);
}

function system(rec: Json, ts: number, state: ClaudeState, ev: SessionEvents): void {
  switch (rec.subtype) {
    case 'turn_duration':
      if (!state.subagent) ev.turnEnded('completed', ts);
      return;
    case 'compact_boundary': {
      const uuid = str(rec.uuid);
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
  const entries: RegistryEntry[] = [];
  for (const e of listDir(join(root, 'sessions'))) {
    if (!e.isFile || !/^\d+\.json$/.test(e.name)) continue;
    // A registry file being rewritten or removed is read at the next scan.
    const rec = jsonObject(readText(e.path) ?? '');
    if (!rec) continue;
    const pid = typeof rec.pid === 'number' ? rec.pid : Number(e.name.slice(0, -5));
    const sessionId = str(rec.sessionId);
    const status = str(rec.status);
    if (!sessionId) continue;
    const procStart = Number(str(rec.procStart) ?? rec.procStart);
    entries.push({
      sessionId, pid, ...(Number.isFinite(procStart) && procStart > 0 ? { procStart } : {}),
      ...(status === 'busy' || status === 'idle' || status === 'waiting' ? { status, waitingFor: str(rec.waitingFor) } : {}),
    });
  }
  return entries;
}

export const claudeCode: Reader<ClaudeState> = {
  harness: 'claude-code',
  defaultRoots,
  watchPaths: (root) => [join(root, 'projects'), join(root, 'sessions')],
  listFiles,
  initialState: (file) => ({ subagent: isSubagentFile(file) }),
  readLine,
  registry,
};
