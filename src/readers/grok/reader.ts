// Grok Build's sessions (xai-org/grok-build): `sessions/<URL-encoded cwd>/<session id>/updates.jsonl`,
// its append-only event log, one `{timestamp (unix s), method, params: {sessionId, update}}` a
// line: ACP updates (`session/update`: prompts, tool calls and their ends) and xAI's
// (`_x.ai/session/update`: `turn_completed` with the prompt's usage, compactions, subagents).
// Tokens and cost come per prompt and per model (`turn_completed.usage.modelUsage`); no per-call
// record is kept. A subagent is a session of its own (`summary.json`'s `parent_session_id`) whose
// usage Grok also folds into its parent's prompt: counted there only.
// The session's `plan_mode.json` (rewritten in place on every change) is read whole when it
// changes: `awaiting_plan_approval`, the only wait on the person Grok persists (see readDocument).

import { basename, dirname, join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolKind, TurnOutcome, Usage } from '../../session/types.js';
import { jsonObject, num, numberOf, obj, str, type Json } from '../fields.js';
import { documentObject } from '../document.js';
import { fileStat, listDir, readText } from '../../files/dir.js';
import { grok as where } from './where.js';

export interface GrokState {
  /** The folder the session works in (the session folder's decoded name, else its `.cwd`). */
  cwd?: string;
  /** A subagent's session: its usage is in its parent's, its first message is its goal. */
  child?: boolean;
  /** A prompt is open: its further chunks are the same prompt. */
  prompting?: boolean;
  /** The model `summary.json` names, until said (the prompts' usage names theirs after). */
  model?: string;
}

function listFiles(root: string): SessionFile[] {
  return listDir(join(root, 'sessions'))
    .filter((p) => p.isDirectory)
    .flatMap((project) =>
      listDir(project.path).flatMap((s) => {
        const path = join(s.path, 'updates.jsonl');
        const stat = s.isDirectory ? fileStat(path) : undefined;
        if (!stat) return [];
        const plan = join(s.path, 'plan_mode.json');
        const planStat = fileStat(plan);
        return [
          { path, sessionId: s.name, stat },
          ...(planStat ? [{ path: plan, sessionId: s.name, stat: planStat, document: true as const }] : []),
        ];
      }),
    );
}

/** The session's folder: its URL-encoded absolute path, or, when that was too long, the `.cwd` file. */
function cwdOf(file: SessionFile): string | undefined {
  const dir = dirname(dirname(file.path));
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(basename(dir));
  } catch {
    decoded = undefined;
  }
  if (decoded && (decoded.startsWith('/') || /^[A-Za-z]:[\\/]/.test(decoded))) return decoded;
  return readText(join(dir, '.cwd'))?.trim() || undefined;
}

function initialState(file: SessionFile): GrokState {
  if (file.document) return {};
  const summary = jsonObject(readText(join(dirname(file.path), 'summary.json')) ?? '');
  const model = str(summary?.current_model_id);
  return {
    cwd: cwdOf(file) ?? str(obj(summary?.info)?.cwd),
    ...(str(summary?.parent_session_id) ? { child: true } : {}),
    ...(model ? { model } : {}),
  };
}

// ACP's tool kinds are the metric contract's; Grok's subagent tool is `task`.
const KINDS = new Set<string>(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode']);
const kindOf = (kind: string | undefined, title: string | undefined): ToolKind =>
  title === 'task' ? 'agent' : kind && KINDS.has(kind) ? (kind as ToolKind) : 'other';

// A prompt's end: ACP's stop reasons, and Grok's `error` and `rate_limit`.
const OUTCOMES: Record<string, TurnOutcome> = {
  end_turn: 'completed',
  max_tokens: 'completed',
  max_turn_requests: 'completed',
  refusal: 'completed',
  cancelled: 'interrupted',
  error: 'failed',
  rate_limit: 'failed',
};

/** One model's usage of a prompt, in the metric contract (Grok's input holds the cache). */
function usageOf(u: Json): Usage {
  const cacheRead = numberOf(u.cachedReadTokens);
  const cacheWrite = numberOf(u.cacheCreationTokens);
  return {
    input: numberOf(u.inputTokens) - cacheRead - cacheWrite,
    output: numberOf(u.outputTokens),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    reasoning: numberOf(u.reasoningTokens),
  };
}

function turnCompleted(u: Json, ts: number, key: string, state: GrokState, ev: SessionEvents): void {
  const usage = obj(u.usage);
  if (usage && !state.child && ev.firstTime(`usage:${key}`)) {
    // Grok strips the cost where it is partial or the usage incomplete: no cost is not free.
    const trusted = usage.usageIsIncomplete !== true && usage.costIsPartial !== true;
    for (const [model, raw] of Object.entries(obj(usage.modelUsage) ?? {})) {
      const m = obj(raw);
      if (!m) continue;
      const v = usageOf(m);
      if (v.input < 0) return ev.skipped('implausible_value');
      const ticks =
        trusted && m.costIsPartial !== true && typeof m.costUsdTicks === 'number' ? m.costUsdTicks : undefined;
      ev.meta({ model });
      ev.usage(model, v, v.input + v.cacheRead + v.cacheWrite, ts, ticks === undefined ? undefined : ticks / 1e10);
    }
  }
  state.prompting = false;
  const outcome = OUTCOMES[str(u.stop_reason) ?? ''] ?? 'completed';
  if (ev.firstTime(`end:${key}`)) ev.turnEnded(outcome, ts);
}

function readLine(line: Buffer, state: GrokState, file: SessionFile, ev: SessionEvents): void {
  const rec = jsonObject(line.toString('utf8'));
  if (!rec) return ev.skipped('parse_error');
  const params = obj(rec.params);
  const u = obj(params?.update);
  const tag = str(u?.sessionUpdate);
  const seconds = num(rec.timestamp);
  if (!u || !tag || !(seconds > 0)) return ev.skipped('unknown_shape');
  const ts = seconds * 1000;
  // Past the last time a Date holds: damage.
  if (ts > 8.64e15) return ev.skipped('implausible_value');
  ev.activity(ts);
  if (state.cwd) ev.meta({ cwd: state.cwd });
  if (state.model) {
    ev.meta({ model: state.model });
    delete state.model;
  }
  // Lines have no id of their own but ACP's `eventId`: the line's place in its session is its key.
  const key = `${file.sessionId}:${str(obj(params?._meta)?.eventId) ?? `${seconds}:${tag}:${str(u.toolCallId) ?? str(u.prompt_id) ?? ''}`}`;
  switch (tag) {
    case 'user_message_chunk':
      // Consecutive chunks are one prompt; a subagent's first message is the goal it was given.
      if (state.prompting) return;
      state.prompting = true;
      if (ev.firstTime(`prompt:${key}`)) {
        if (!state.child) ev.prompt(ts);
        ev.turnStarted(ts);
      }
      return;
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      state.prompting = false;
      return;
    case 'tool_call': {
      state.prompting = false;
      const id = str(u.toolCallId);
      if (!id) return ev.skipped('unknown_shape');
      const kind = kindOf(str(u.kind), str(u.title));
      if (ev.firstTime(`call:${file.sessionId}:${id}`))
        ev.toolCall(id, { tool: kind === 'other' ? 'other' : (str(u.title) ?? kind), kind });
      return;
    }
    case 'tool_call_update': {
      const id = str(u.toolCallId);
      const status = str(u.status);
      if (!id) return ev.skipped('unknown_shape');
      if ((status === 'completed' || status === 'failed') && ev.firstTime(`result:${file.sessionId}:${id}`))
        ev.toolResult(id, status === 'failed');
      return;
    }
    case 'auto_compact_completed':
      if (ev.firstTime(`compaction:${key}`)) ev.compaction();
      return;
    case 'model_changed': {
      const model = str(u.model_id) ?? str(u.model);
      if (model) ev.meta({ model });
      return;
    }
    case 'turn_completed':
      return turnCompleted(u, ts, key, state, ev);
  }
}

/**
 * `plan_mode.json`: Grok sets `awaiting_plan_approval` when the call that exits plan mode asks the
 * person to approve the plan, and clears it once they answer or the turn is cancelled; it keeps it
 * when the client quits, so that a resume asks again (tool_calls.rs). Absent in older files: false.
 * A wait from before the session's last turn end is such a kept one (see statusOf).
 */
function readDocument(doc: Buffer, _state: GrokState, file: SessionFile, ev: SessionEvents): void {
  const plan = documentObject(doc, ev);
  if (!plan) return;
  const awaiting = plan.awaiting_plan_approval ?? false;
  if (typeof awaiting !== 'boolean') return ev.skipped('unknown_shape');
  const written = file.stat?.mtimeMs ?? 0;
  // To the second, as the records' times are: a turn end of the same second is after it.
  ev.asks(awaiting && written > 0 ? Math.floor(written / 1000) * 1000 : undefined);
}

export const grok: LineReader<GrokState> = {
  ...where,
  kind: 'files',
  listFiles,
  initialState,
  readLine,
  readDocument,
};
