// The OpenHands CLI's conversations (OpenHands/OpenHands-CLI on the software-agent-sdk): one folder
// per conversation, `<conversation uuid as 32 hex>/`, holding `base_state.json` (the
// `ConversationState`, rewritten in place on every state change) and `events/event-<n>-<id>.json`
// (one event a file, never rewritten). A subagent's conversation is the same layout under its
// parent's `subagents/<hex>/`.
// Tokens and cost are running totals per usage id (`stats.usage_to_metrics`: `agent`, `condenser`,
// `task:<id>`) with one record per call (`token_usages[]`, `costs[]`); what grew since the last
// read counts, per usage id and model. A `task:<id>` entry is a copy of a subagent's metrics: they
// count there, in the parent, and not again in the subagent's own folder.
// Turns, tools, compactions and failures come from the events, read when the state file changes.

import { basename, dirname, join } from 'node:path';
import { type DocumentReader, type SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolCall, ToolKind, UsagePart } from '../../session/types.js';
import { countGrowth, dollars, tokenCounts, skipTotals, type Marks } from '../cumulative.js';
import { documentObject } from '../document.js';
import { jsonObject, obj, str, time, type Json } from '../fields.js';
import { listDir, readText } from '../../files/dir.js';
import { builtinTool } from '../tools.js';
import { openhands as where } from './where.js';

export interface OpenHandsState {
  /** A subagent's conversation: its usage is in its parent's, its first message is its goal. */
  child?: true;
  /** The index of the next event file to read. */
  next: number;
  /** A turn is open (a message of the person's not yet answered or failed). */
  open?: true;
  /** The time of the latest event read: the time of the usage counted with it. */
  last?: number;
  /** Tool calls not yet returned, by call id: the one a confirmation waits on is the last. */
  pending: string[];
  /** The call shown as waiting for approval. */
  waiting?: string;
  /** The running totals counted, per usage id and model. */
  marks: Marks;
}

const HEX = /^[0-9a-f]{32}$/i;
const EVENT = /^event-(\d+)-.*\.json$/;

/** The conversation id as OpenHands writes it in `base_state.json` (a uuid with dashes). */
const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();

function conversations(dir: string): SessionFile[] {
  return listDir(dir)
    .filter((e) => e.isDirectory && HEX.test(e.name))
    .flatMap((c) => [
      { path: join(c.path, 'base_state.json'), sessionId: uuidOf(c.name), document: true as const },
      ...conversations(join(c.path, 'subagents')),
    ]);
}

// The SDK's tools (openhands-tools) by kind; `task` and `delegate` start subagents.
const KINDS: Record<string, ToolKind> = {
  terminal: 'execute',
  execute_bash: 'execute',
  file_editor: 'edit',
  str_replace_editor: 'edit',
  planning_file_editor: 'edit',
  glob: 'search',
  grep: 'search',
  task_tracker: 'plan',
  think: 'think',
  task: 'agent',
  delegate: 'agent',
};
const classifyTool = (name: string): ToolCall =>
  builtinTool(name, { kinds: KINDS, waits: { task: 'subagents', delegate: 'subagents' } });

function endTurn(
  state: OpenHandsState,
  ev: SessionEvents,
  outcome: 'completed' | 'failed' | 'interrupted',
  ts: number,
): void {
  if (!state.open) return;
  delete state.open;
  ev.turnEnded(outcome, ts);
}

function readEvent(e: Json, state: OpenHandsState, session: string, ev: SessionEvents): void {
  const ts = time(e.timestamp);
  const id = str(e.id);
  const kind = str(e.kind);
  if (ts === undefined || !id || !kind) return ev.skipped('unknown_shape');
  ev.activity(ts);
  state.last = Math.max(state.last ?? 0, ts);
  if (!ev.firstTime(`event:${session}:${id}`)) return;
  switch (kind) {
    case 'MessageEvent':
      if (e.source === 'user') {
        // A subagent's first message is the goal it was given, not a person's prompt.
        if (!state.child) ev.prompt(ts);
        endTurn(state, ev, 'completed', ts);
        state.open = true;
        ev.turnStarted(ts);
      } else if (e.source === 'agent') {
        // The agent's message without a tool call ends its run (the SDK sets `finished`).
        endTurn(state, ev, 'completed', ts);
      }
      return;
    case 'ActionEvent': {
      const call = str(e.tool_call_id);
      if (!call) return ev.skipped('unknown_shape');
      ev.toolCall(call, classifyTool(str(e.tool_name) ?? ''));
      // Bounded: a call whose result was never written is not kept for ever.
      state.pending = [...state.pending, call].slice(-64);
      return;
    }
    case 'ObservationEvent':
    case 'UserRejectObservation':
    case 'AgentErrorEvent': {
      const call = str(e.tool_call_id);
      if (!call) return kind === 'AgentErrorEvent' ? undefined : ev.skipped('unknown_shape');
      // A refusal is the person's answer, not the tool failing; a terminal's exit code is no error flag.
      const failed =
        kind === 'AgentErrorEvent' || (kind === 'ObservationEvent' && obj(e.observation)?.is_error === true);
      ev.toolResult(call, failed);
      state.pending = state.pending.filter((p) => p !== call);
      return;
    }
    case 'Condensation':
      return ev.compaction();
    case 'ConversationErrorEvent':
      return endTurn(state, ev, 'failed', ts);
    case 'PauseEvent':
    case 'InterruptEvent':
      return endTurn(state, ev, 'interrupted', ts);
  }
}

/** The event files not read yet, in order; a file that does not parse (being written) stops the read there. */
function readEvents(dir: string, state: OpenHandsState, session: string, ev: SessionEvents): void {
  const files = listDir(join(dir, 'events'))
    .flatMap((f) => {
      const m = EVENT.exec(f.name);
      return m && f.isFile && Number(m[1]) >= state.next ? [{ n: Number(m[1]), path: f.path }] : [];
    })
    .sort((a, b) => a.n - b.n);
  for (const f of files) {
    const e = jsonObject(readText(f.path) ?? '');
    if (!e) return;
    readEvent(e, state, session, ev);
    state.next = f.n + 1;
  }
}

const TOKENS = [
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;

/** One usage id's calls, summed per model: tokens from `token_usages[]`, dollars from `costs[]`. */
function byModel(m: Json, key: string, ev: SessionEvents): Map<string, { totals: number[]; cost: number }> | undefined {
  const out = new Map<string, { totals: number[]; cost: number }>();
  const fallback = str(m.model_name) ?? 'unknown';
  const at = (model: string) => out.get(model) ?? out.set(model, { totals: [0, 0, 0, 0, 0], cost: 0 }).get(model)!;
  for (const raw of Array.isArray(m.token_usages) ? m.token_usages : []) {
    const u = obj(raw);
    const values = u && TOKENS.map((k) => u[k]);
    const counts = values && tokenCounts(values);
    if (!u || !counts) {
      skipTotals(ev, key, values ?? [raw]);
      return undefined;
    }
    const t = at(str(u.model) ?? fallback).totals;
    counts.forEach((v, i) => (t[i]! += v));
  }
  for (const raw of Array.isArray(m.costs) ? m.costs : []) {
    const c = obj(raw);
    const cost = dollars(c?.cost);
    if (cost === undefined) continue;
    if (Number.isNaN(cost)) {
      skipTotals(ev, key, [c?.cost]);
      return undefined;
    }
    at(str(c?.model) ?? fallback).cost += cost;
  }
  return out;
}

/** The context the main model's last call filled, of the window it names. */
function context(agent: Json | undefined, ev: SessionEvents): void {
  const calls = Array.isArray(agent?.token_usages) ? agent.token_usages : [];
  const last = obj(calls.at(-1));
  const prompt = last?.prompt_tokens;
  const model = str(last?.model) ?? str(agent?.model_name);
  const limit = last?.context_window;
  if (!model || typeof prompt !== 'number' || !(prompt > 0) || !Number.isSafeInteger(prompt)) return;
  ev.context(model, prompt, typeof limit === 'number' && limit > 0 && Number.isSafeInteger(limit) ? limit : undefined);
}

function countUsage(d: Json, state: OpenHandsState, session: string, ts: number, ev: SessionEvents): void {
  const metrics = obj(obj(d.stats)?.usage_to_metrics);
  context(obj(metrics?.agent), ev);
  for (const [usageId, raw] of Object.entries(metrics ?? {})) {
    const m = obj(raw);
    if (!m) {
      ev.skipped('unknown_shape');
      continue;
    }
    for (const [model, { totals, cost }] of byModel(m, `${session}:${usageId}`, ev) ?? []) {
      const [prompt, output, cacheRead, cacheWrite, reasoning] = totals as [number, number, number, number, number];
      // litellm's prompt tokens hold the cache reads and writes.
      const input = prompt - cacheRead - cacheWrite;
      if (input < 0) {
        skipTotals(ev, `${session}:${usageId}:${model}`, totals);
        continue;
      }
      // A reasoning count of 0 is what the SDK writes when the provider sends none: not recorded.
      const unsaid: UsagePart[] = reasoning > 0 ? [] : ['reasoning'];
      countGrowth(
        ev,
        state.marks,
        `${session}:${usageId}:${model}`,
        model,
        { input, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning },
        cost,
        ts,
        unsaid,
      );
    }
  }
}

function readDocument(doc: Buffer, state: OpenHandsState, file: SessionFile, ev: SessionEvents): void {
  // Written with a plain truncate and write: a half-written state is read at its next change.
  const d = documentObject(doc, ev);
  if (!d) return;
  const session = file.sessionId;
  const cwd = str(obj(d.workspace)?.working_dir);
  const model = str(obj(obj(d.agent)?.llm)?.model);
  if (cwd) ev.meta({ cwd });
  if (model) ev.meta({ model });
  readEvents(dirname(file.path), state, session, ev);
  const ts = state.last ?? file.stat?.mtimeMs ?? 0;
  if (!state.child) countUsage(d, state, session, ts, ev);
  const status = str(d.execution_status);
  // The call a confirmation waits on is the last one not returned.
  const waiting = status === 'waiting_for_confirmation' ? state.pending.at(-1) : undefined;
  if (state.waiting && state.waiting !== waiting) ev.toolWaits(state.waiting, undefined);
  if (waiting && waiting !== state.waiting) ev.toolWaits(waiting, 'approval');
  if (waiting) state.waiting = waiting;
  else delete state.waiting;
  if (status === 'finished' || status === 'idle') endTurn(state, ev, 'completed', ts);
  else if (status === 'error' || status === 'stuck') endTurn(state, ev, 'failed', ts);
  else if (status === 'paused') endTurn(state, ev, 'interrupted', ts);
}

function initialState(file: SessionFile): OpenHandsState {
  const child = basename(dirname(dirname(file.path))) === 'subagents';
  return { ...(child ? { child: true as const } : {}), next: 0, pending: [], marks: {} };
}

export const openhands: DocumentReader<OpenHandsState> = {
  ...where,
  kind: 'documents',
  listFiles: conversations,
  initialState,
  readDocument,
};
