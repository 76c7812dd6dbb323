// Kimi CLI (MoonshotAI/kimi-cli): `~/.kimi` (`$KIMI_SHARE_DIR`) holds `sessions/<md5 of the
// folder>/<session uuid>/wire.jsonl`, the append-only event log of a session (protocol 1.x:
// `{timestamp, message: {type, payload}}` lines after a `metadata` line), and each subagent's own
// log in `subagents/<agent id>/wire.jsonl` beside it. `kimi.json` names the folder of each md5.
//
// Tokens: one `StatusUpdate` per model step, its `token_usage.input_other` without the cache
// (kosong's TokenUsage). A subagent's steps are mirrored into its parent's log as `SubagentEvent`s:
// they count from the subagent's own log (its tokens and tools for the parent session, its turns
// and prompts not: they are its parent's instructions), never from the mirror. The log names no
// model: the session's is `default_model` of `config.toml` (the only key read there, which also
// holds API keys), a subagent's its `meta.json`'s `effective_model`. No cost, no reasoning count.
// A failed turn is written as an interrupted one (`StepInterrupted`).

import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { jsonObject, numberOf, obj, str, type Json } from '../fields.js';
import { fileStat, listDir, ParsedFiles, readText } from '../../files/dir.js';
import { secondsToMs } from '../sqlite.js';
import { classifyTool } from './tools.js';
import { kimiCli as where } from './where.js';

export interface KimiState {
  /** The log is a subagent's. */
  subagent: boolean;
  /** The model its steps ran on, found at its first line. */
  model?: string;
  /** Approval requests not answered, by request id: the tool call each holds. */
  approvals: Record<string, string>;
}

const WIRE = 'wire.jsonl';

// The sessions folder only: `~/.kimi` also holds config.toml, with API keys.
function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const group of listDir(root)) {
    if (!group.isDirectory) continue;
    for (const session of listDir(group.path)) {
      if (!session.isDirectory) continue;
      const wire = join(session.path, WIRE);
      const stat = fileStat(wire);
      if (stat) files.push({ path: wire, sessionId: session.name, stat });
      for (const sub of listDir(join(session.path, 'subagents'))) {
        const path = join(sub.path, WIRE);
        const subStat = sub.isDirectory ? fileStat(path) : undefined;
        if (subStat) files.push({ path, sessionId: session.name, stat: subStat });
      }
    }
  }
  return files;
}

const isSubagentFile = (file: SessionFile) => basename(dirname(dirname(file.path))) === 'subagents';

/**
 * `kimi.json`'s folders by their session groups' names (`<md5>` and `<kaos>_<md5>`): read once
 * per change of it, not once per session (every folder's md5 for each session's first line).
 */
export const workDirs = new ParsedFiles((text) => {
  const index = jsonObject(text ?? '');
  const byGroup = new Map<string, string>();
  for (const w of Array.isArray(index?.work_dirs) ? index.work_dirs : []) {
    const path = str(obj(w)?.path);
    if (!path) continue;
    const md5 = createHash('md5').update(path).digest('hex');
    const kaos = str(obj(w)?.kaos) ?? 'local';
    // The first folder of a name, as the list was searched in order.
    for (const group of [md5, `${kaos}_${md5}`]) if (!byGroup.has(group)) byGroup.set(group, path);
  }
  return byGroup;
});

/** The configured default model (`config.toml`, which holds API keys too: only this key is kept), read once per change. */
const defaultModels = new ParsedFiles((config) => /^default_model\s*=\s*"([^"\n]+)"/m.exec(config ?? '')?.[1]);

/** The session folder's path: `kimi.json` maps each `<md5>` (or `<kaos>_<md5>`) back to it. */
function cwdOf(file: SessionFile, sub: boolean): string | undefined {
  const sessionDir = sub ? dirname(dirname(dirname(file.path))) : dirname(file.path);
  const group = basename(dirname(sessionDir));
  return workDirs.get(join(dirname(dirname(dirname(sessionDir))), 'kimi.json')).get(group);
}

/** The model a log's steps ran on: a subagent's from its `meta.json`, else the configured default. */
function modelOf(file: SessionFile, sub: boolean): string | undefined {
  if (sub)
    return str(obj(jsonObject(readText(join(dirname(file.path), 'meta.json')) ?? '')?.launch_spec)?.effective_model);
  return defaultModels.get(join(dirname(dirname(dirname(dirname(file.path)))), 'config.toml'));
}

function readLine(line: Buffer, state: KimiState, file: SessionFile, ev: SessionEvents): void {
  const rec = jsonObject(line.toString('utf8'));
  if (!rec) return ev.skipped('parse_error');
  if (rec.type === 'metadata') {
    const cwd = cwdOf(file, state.subagent);
    state.model = modelOf(file, state.subagent);
    return ev.meta({ ...(cwd ? { cwd } : {}), ...(state.model ? { model: state.model } : {}) });
  }
  const msg = obj(rec.message);
  const type = str(msg?.type);
  const p = obj(msg?.payload);
  // Unix seconds; one past any date is damage, not a time.
  const ts = secondsToMs(rec.timestamp);
  if (ts === undefined || !type || !p) return ev.skipped('unknown_shape');
  ev.activity(ts);
  event(type, p, ts, state, ev);
}

function event(type: string, p: Json, ts: number, state: KimiState, ev: SessionEvents): void {
  // A subagent's prompts and turns are its parent's instructions and the parent's tool call.
  const own = !state.subagent;
  switch (type) {
    case 'TurnBegin':
      if (!own) return;
      ev.prompt(ts);
      // An interrupted turn may have no end: the next prompt ends it.
      return ev.turnStarted(ts, 'interrupted');
    case 'SteerInput':
      return own ? ev.prompt(ts) : undefined;
    case 'TurnEnd':
      return own ? ev.turnEnded('completed', ts) : undefined;
    case 'StepInterrupted':
      return own ? ev.turnEnded('interrupted', ts) : undefined;
    case 'CompactionBegin':
      return ev.compaction();
    case 'StatusUpdate':
      return statusUpdate(p, ts, state.model ?? 'unknown', own, ev);
    case 'ToolCall': {
      const id = str(p.id);
      const name = str(obj(p.function)?.name);
      return id && name ? ev.toolCall(id, classifyTool(name)) : ev.skipped('unknown_shape');
    }
    case 'ToolResult': {
      const id = str(p.tool_call_id);
      return id ? ev.toolResult(id, obj(p.return_value)?.is_error === true) : ev.skipped('unknown_shape');
    }
    case 'ApprovalRequest': {
      const id = str(p.id);
      const call = str(p.tool_call_id);
      if (!id || !call) return ev.skipped('unknown_shape');
      state.approvals[id] = call;
      return ev.toolWaits(call, 'approval');
    }
    case 'ApprovalResponse':
    case 'ApprovalRequestResolved': {
      const call = state.approvals[str(p.request_id) ?? ''];
      if (!call) return;
      delete state.approvals[str(p.request_id)!];
      return ev.toolWaits(call, undefined);
    }
    case 'QuestionRequest': {
      const call = str(p.tool_call_id);
      return call ? ev.toolWaits(call, 'question') : undefined;
    }
  }
}

function statusUpdate(p: Json, ts: number, model: string, own: boolean, ev: SessionEvents): void {
  const u = obj(p.token_usage);
  // Updates of the MCP servers' or the plan mode's state carry no usage.
  if (!u) return;
  const input = numberOf(u.input_other);
  const cacheRead = numberOf(u.input_cache_read);
  const cacheWrite = numberOf(u.input_cache_creation);
  const prompt = input + cacheRead + cacheWrite;
  ev.usage(
    model,
    { input, output: numberOf(u.output), cacheRead, cacheWrite, cacheWrite1h: 0, reasoning: 0 },
    prompt,
    ts,
  );
  const context = p.context_tokens;
  if (own && typeof context === 'number')
    ev.context(model, context, typeof p.max_context_tokens === 'number' ? p.max_context_tokens : undefined);
}

export const kimiCli: LineReader<KimiState> = {
  ...where,
  kind: 'files',
  unrecorded: ['reasoning'],
  listFiles,
  initialState: (file) => ({ subagent: isSubagentFile(file), approvals: {} }),
  readLine,
};
