// Claude Code transcripts: one JSONL file per session (`projects/<slug>/<session>.jsonl`), one
// line per record. The real CLI's files are in test/fixtures/captures/claude-code*.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Reader, SessionEvents, SessionFile } from '../reader.js';
import { minusUsage, ZERO_USAGE as ZERO, type ProcessState, type Usage } from '../../session/types.js';
import { countPatchLines, lineTime, num, obj, str, time, typeMarker, type Json } from '../fields.js';
import { parseJson } from '../lines.js';
import { defaultRoots, isSubagentFile, listFiles } from './paths.js';
import { classifyTool } from './tools.js';

export interface ClaudeState {
  /** A subagent transcript: its tokens and tools count for the parent; its turns do not. */
  subagent: boolean;
  /** Model seen so far (from answers or request records), so request records can be skipped. */
  model?: string;
}

// Records never needed: skipped on their bytes, before anything is decoded. They are checked first
// because their nested content may hold other records' markers (progress embeds assistant messages).
const SKIP = ['attachment', 'progress', 'api-request-shape', 'api-request-blob', 'file-history-snapshot',
  'queue-operation', 'last-prompt', 'cost-state', 'tools-used', 'atis-latch'].map(typeMarker);
const ASSISTANT = typeMarker('assistant');
const USER = typeMarker('user');
const SYSTEM = typeMarker('system');
const API_REQUEST = typeMarker('api-request');

// A user record this long is a tool result (a file, command output); its outcome is read from its
// bytes unless it carries an edit's patch.
const LARGE_USER = 16 * 1024;
const TOOL_USE_ID = Buffer.from('"tool_use_id":"');
const IS_ERROR = Buffer.from('"is_error":true');
const PATCH = Buffer.from('"structuredPatch"');

// Text a user record starts with when it is not a typed prompt.
const NOT_PROMPT = ['<command-name>', '<local-command-stdout>', '<local-command-caveat>', '<task-notification>',
  '<system-reminder>', 'Caveat:', '[Request interrupted'];

function readLine(line: Buffer, state: ClaudeState, file: SessionFile, ev: SessionEvents): void {
  if (SKIP.some((m) => line.includes(m))) {
    const ts = lineTime(line);
    if (ts !== undefined) ev.activity(ts);
    return;
  }
  const isAssistant = line.includes(ASSISTANT);
  const isUser = !isAssistant && line.includes(USER);
  if (isUser && line.length > LARGE_USER && !line.includes(PATCH) && largeToolResult(line, ev)) return;
  if (!isAssistant && !isUser && !line.includes(SYSTEM) && !(state.model === undefined && line.includes(API_REQUEST))) {
    const ts = lineTime(line);
    if (ts !== undefined) ev.activity(ts);
    return;
  }
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
    case 'assistant': return assistant(rec, ts ?? Date.now(), state, ev);
    case 'user': return user(rec, ts ?? Date.now(), state, ev);
    case 'system': return system(rec, ts ?? Date.now(), state, ev);
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

/** A large tool result, read from its bytes: which call it answers and whether it failed. */
function largeToolResult(line: Buffer, ev: SessionEvents): boolean {
  const at = line.indexOf(TOOL_USE_ID);
  if (at === -1 || line.indexOf(TOOL_USE_ID, at + 1) !== -1) return false; // not one result: parse it
  const from = at + TOOL_USE_ID.length;
  const to = line.indexOf(34, from);
  if (to === -1) return false;
  const ts = lineTime(line);
  if (ts !== undefined) ev.activity(ts);
  ev.toolResult(line.toString('latin1', from, to), line.includes(IS_ERROR));
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

function assistant(rec: Json, ts: number, state: ClaudeState, ev: SessionEvents): void {
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
  const u = obj(msg.usage);
  const id = str(msg.id);
  if (u) {
    const usage = usageOf(u);
    // One response is written as one line per content block, each repeating the usage; early
    // lines may hold streaming placeholders. Count each response once, from its largest record.
    const key = id ? `msg:${id}` : undefined;
    const prev = key ? ev.recall(key) : undefined;
    if (!prev || usage.output >= prev.output) {
      const delta = prev ? minusUsage(usage, prev) : usage;
      if (key) ev.remember(key, usage);
      ev.usage(model, delta, usage.input + usage.cacheRead + usage.cacheWrite);
    }
    if (!state.subagent) ev.context(model, usage.input + usage.cacheRead + usage.cacheWrite);
  }
  const content = Array.isArray(msg.content) ? msg.content : [];
  for (const block of content) {
    const b = obj(block);
    if (!b || (b.type !== 'tool_use' && b.type !== 'server_tool_use')) continue;
    const toolId = str(b.id);
    const name = str(b.name);
    if (!toolId || !name || ev.recall(`tool:${toolId}`)) continue;
    ev.remember(`tool:${toolId}`, ZERO);
    ev.toolCall(toolId, classifyTool(name));
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
  if (uuid) {
    if (ev.recall(`prompt:${uuid}`)) return;
    ev.remember(`prompt:${uuid}`, ZERO);
  }
  ev.prompt(ts);
  ev.turnStarted(ts);
}

/** Lines changed by an Edit/Write/MultiEdit result. */
function lines(result: Json, ev: SessionEvents): void {
  const hunks = Array.isArray(result.structuredPatch) ? result.structuredPatch : [];
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    const c = countPatchLines(Array.isArray(obj(h)?.lines) ? (obj(h)!.lines as unknown[]) : []);
    added += c.added;
    removed += c.removed;
  }
  // A newly created file has no patch: all its lines are added.
  const created = result.type === 'create' ? str(result.content) : undefined;
  if (hunks.length === 0 && created) added += created.split('\n').length - (created.endsWith('\n') ? 1 : 0);
  if (added > 0 || removed > 0) ev.lines(added, removed);
}

function system(rec: Json, ts: number, state: ClaudeState, ev: SessionEvents): void {
  switch (rec.subtype) {
    case 'turn_duration':
      if (!state.subagent) ev.turnEnded('completed', ts);
      return;
    case 'compact_boundary': {
      const uuid = str(rec.uuid);
      if (uuid && ev.recall(`compact:${uuid}`)) return;
      if (uuid) ev.remember(`compact:${uuid}`, ZERO);
      ev.compaction();
      return;
    }
  }
}

/** `sessions/<pid>.json`: one file per live interactive process, saying whether it is busy or waiting. */
function processes(root: string): Map<string, ProcessState> {
  const live = new Map<string, ProcessState>();
  const dir = join(root, 'sessions');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return live;
  }
  for (const name of names) {
    try {
      const rec = obj(JSON.parse(readFileSync(join(dir, name), 'utf8')));
      const pid = typeof rec?.pid === 'number' ? rec.pid : Number(name.slice(0, -5));
      const sessionId = str(rec?.sessionId);
      const status = str(rec?.status);
      if (!sessionId || (status !== 'busy' && status !== 'idle' && status !== 'waiting') || !alive(pid)) continue;
      live.set(sessionId, { status, waitingFor: str(rec?.waitingFor) });
    } catch {
      // A registry file being rewritten or removed: the next scan reads it.
    }
  }
  return live;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const claudeCode: Reader<ClaudeState> = {
  harness: 'claude-code',
  defaultRoots,
  listFiles,
  initialState: (file) => ({ subagent: isSubagentFile(file) }),
  readLine,
  processes,
};
