// GitHub Copilot CLI event logs: `session-state/<session>/events.jsonl`, one
// `{type, data, id, timestamp, parentId}` event per line, plus `session-store.db`'s per-call rows
// (store.ts) and the optional OpenTelemetry file export (otel.ts). The real CLI's files are in
// test/fixtures/captures/copilot-cli.

import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolCall } from '../../session/types.js';
import {
  addUsage,
  maxUsage,
  minusUsage,
  plausibleAmount,
  plausibleCount,
  plausibleUsage,
  usageFromPrompt,
  ZERO_USAGE,
  type TokenType,
  type Usage,
} from '../../session/types.js';
import { num, numberOf, obj, str, time, type Json } from '../fields.js';
import { parseJson } from '../lines.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { callKey, nthTime, outputKey } from './calls.js';
import { readSpan } from './otel.js';
import { listFiles, OTEL_PREFIX, registry } from './paths.js';
import { readStoreFile, storeTotals, type StoreCursor } from './store.js';
import { classifyTool } from './tools.js';
import { copilotCli as where } from './where.js';

export interface CopilotState {
  /** A file of the OpenTelemetry export, the session its last span named, and its tally of calls (calls.ts). */
  otel?: { session?: string; said?: Record<string, number> };
  /** `session-store.db`: where it was read to. */
  store?: StoreCursor;
  /** How many calls (and, of CLIs without usage records, message outputs) said the same so far (calls.ts). */
  said?: Record<string, number>;
  model?: string;
  /**
   * Tokens this log accounts for, per model: per-call records, per-message output, the store's rows
   * of the session as a run's end found them, and what the cumulative shutdown totals added.
   * Shutdown totals count only what exceeds them.
   */
  counted: Record<string, Usage>;
  /** The log has per-call `session.usage_record` events (newer CLIs): its messages' output is not counted. */
  perCall?: true;
  /**
   * A call of this session was counted from the OpenTelemetry export, whose input and cache tokens
   * this log cannot subtract: its shutdown totals are not added, which would count them twice.
   */
  external?: true;
  /** Lines changed as the last shutdown totals said (cumulative, like the tokens). */
  linesCounted?: { added: number; removed: number };
  /** Premium requests per model as the last shutdown totals said (cumulative, like the tokens). */
  premiumCounted?: Record<string, number>;
  /** Tool names the model asked for, by call id, until the call asks permission or starts. */
  requested: Record<string, string>;
  /** Calls counted and not yet completed, by call id. */
  calls: Record<string, ToolCall>;
  /** Permission requests waiting for an answer: the call each is for. */
  permissions: Record<string, string>;
  /**
   * The main agent's last answer asked for no tool: the round's end ends the turn. The reader's
   * own (what an answer asked for), not a copy of the store's whether a turn is open.
   */
  answered?: boolean;
}

// Events worth decoding; of all others (system prompts, reasoning, hooks, notices) only the time
// is read.
const KNOWN = new Set([
  'session.start',
  'session.resume',
  'session.context_changed',
  'session.model_change',
  'user.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.message',
  'session.usage_record',
  'tool.execution_start',
  'tool.execution_complete',
  'permission.requested',
  'permission.completed',
  'session.error',
  'abort',
  'session.task_complete',
  'session.compaction_complete',
  'session.shutdown',
]);
// What is read of every event before deciding to decode it: tool starts and ends are read from
// it alone (their arguments and results can be whole files).
const EVENT: Shape = {
  type: true,
  id: true,
  timestamp: true,
  data: { toolCallId: true, toolName: true, mcpServerName: true, success: true, shellExecution: { exitCode: true } },
};

function readLine(line: Buffer, state: CopilotState, file: SessionFile, ev: SessionEvents): void {
  if (state.otel) {
    const otel = state.otel;
    return readSpan(line, ev, (id) => void (otel.session = id), (otel.said ??= {}));
  }
  const event = scanRecord(line, EVENT);
  if (!event) return ev.skipped('parse_error');
  const type = event.text('type');
  if (type === undefined) return ev.skipped('unknown_shape');
  // Every event has an id: a log read again from its start, or copied into another file, counts
  // nothing twice.
  const id = event.text('id');
  if (id) ev.record(id);
  const at = time(event.text('timestamp'));
  // Tool events are read from their scanned fields alone (arguments and results can be whole
  // files); an event of another type is activity.
  if (type === 'tool.execution_start' || type === 'tool.execution_complete' || !KNOWN.has(type)) {
    if (at !== undefined) ev.activity(at);
    if (type === 'tool.execution_start') toolStart(event, state, ev);
    if (type === 'tool.execution_complete') toolComplete(event, state, ev);
    return;
  }
  const rec = parseJson(line);
  const d = obj(rec?.data);
  if (!rec || !d) return ev.skipped(rec ? 'unknown_shape' : 'parse_error');
  const ts = at ?? Date.now();
  ev.activity(ts);
  // A subagent's events are inline, marked by the `task` call that runs it.
  const sub = rec.agentId !== undefined || d.parentToolCallId !== undefined;
  switch (type) {
    case 'session.start':
    case 'session.resume': {
      const context = obj(d.context);
      const model = str(d.selectedModel);
      if (model && model !== 'auto') state.model = model;
      return ev.meta({ cwd: str(context?.cwd), gitBranch: str(context?.branch), model: state.model });
    }
    case 'session.context_changed':
      return ev.meta({ cwd: str(d.cwd), gitBranch: str(d.branch) });
    case 'session.model_change': {
      const model = str(d.newModel);
      if (model && model !== 'auto') state.model = model;
      return ev.meta({ model: state.model });
    }
    case 'user.message':
      return sub ? undefined : userMessage(rec, d, ts, ev);
    case 'assistant.turn_start':
      if (sub) return;
      state.answered = false;
      return ev.turnStarted(ts);
    case 'assistant.turn_end':
      // A round that ran tools is followed by another; the round whose answer asked for none ends the turn.
      return !sub && state.answered ? endTurn('completed', ts, state, ev) : undefined;
    case 'assistant.message':
      return assistantMessage(d, sub, ts, file.sessionId, state, ev);
    case 'session.usage_record':
      return usageRecord(d, sub, ts, file.sessionId, state, ev);
    case 'permission.requested':
      return permissionRequested(d, state, ev);
    case 'permission.completed':
      return permissionCompleted(d, state, ev);
    case 'session.error':
      // The request failed after the CLI's own retries: the turn ends with it.
      return sub ? undefined : endTurn('failed', ts, state, ev);
    case 'abort':
      return endTurn('interrupted', ts, state, ev);
    case 'session.task_complete':
      return endTurn(d.success === false ? 'failed' : 'completed', ts, state, ev);
    case 'session.compaction_complete': {
      if (d.success === false) return;
      ev.compaction();
      const after = num(d.postCompactionTokens);
      if (after && state.model) ev.context(state.model, after, num(d.tokenLimit) || undefined);
      return;
    }
    case 'session.shutdown':
      return shutdown(rec, d, ts, file, state, ev);
  }
}

function endTurn(
  outcome: 'completed' | 'failed' | 'interrupted',
  ts: number,
  state: CopilotState,
  ev: SessionEvents,
): void {
  state.answered = false;
  state.requested = {};
  ev.turnEnded(outcome, ts);
}

/**
 * A prompt typed by the person. Skill-injected messages (`source`), autopilot continuations and
 * subagent prompts are not. A log copied into another file (the flat layout's migration) repeats
 * event ids: a prompt counts once.
 */
function userMessage(rec: Json, d: Json, ts: number, ev: SessionEvents): void {
  const source = str(d.source);
  if ((source !== undefined && source !== 'user') || d.isAutopilotContinuation === true) return;
  const id = str(rec.id);
  if (id && !ev.firstTime(`prompt:${id}`)) return;
  ev.prompt(ts);
  ev.turnStarted(ts);
}

function assistantMessage(
  d: Json,
  sub: boolean,
  ts: number,
  session: string,
  state: CopilotState,
  ev: SessionEvents,
): void {
  const requests = Array.isArray(d.toolRequests) ? d.toolRequests.map(obj) : [];
  for (const r of requests) {
    const id = str(r?.toolCallId);
    const name = str(r?.name);
    if (id && name) state.requested[id] = name;
  }
  if (!sub) state.answered = requests.length === 0;
  const output = numberOf(d.outputTokens);
  // Older CLIs record only each message's output tokens; their other tokens arrive at shutdown.
  if (output === 0 || state.perCall) return;
  const model = str(d.model) ?? state.model ?? 'unknown';
  const call = str(d.apiCallId);
  const fresh = !call || ev.firstTime(`call:${call}`);
  // The same output of a call the store counted already is accounted for, not counted.
  const stored = !ev.firstTime(outputKey(session, model, output, nthTime((state.said ??= {}), `o ${model} ${output}`)));
  if (!fresh) {
    state.external = true;
    return;
  }
  count(model, { ...ZERO_USAGE, output }, 0, ts, state, ev, !stored, OUTPUT_ONLY);
}

// What a message of an older CLI says: its output; its input and cache tokens are not known yet.
const OUTPUT_ONLY = ['input', 'cache_read', 'cache_write'] as const;

/** Adds a model's tokens to what this log accounts for, and reports them. */
function count(
  model: string,
  u: Usage,
  tierInput: number,
  ts: number,
  state: CopilotState,
  ev: SessionEvents,
  report = true,
  unsaid?: readonly TokenType[],
): void {
  // Added to what the log accounts for, a damaged count would stop the shutdown totals counting.
  if (!plausibleUsage(u)) return ev.skipped('implausible_value');
  state.counted[model] = addUsage(state.counted[model] ?? ZERO_USAGE, u);
  if (report && u.input + u.output + u.cacheRead + u.cacheWrite > 0)
    ev.usage(model, u, tierInput, ts, undefined, unsaid);
}

/** Copilot's usage (`inputTokens` includes cache reads and writes) in the metric contract's semantics. */
function usageOf(u: Json): Usage {
  return usageFromPrompt(
    numberOf(u.inputTokens),
    numberOf(u.outputTokens),
    numberOf(u.cacheReadTokens),
    numberOf(u.cacheWriteTokens),
    numberOf(u.reasoningTokens),
  );
}

const COUNTS = ['outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

/**
 * One model call (`session.usage_record`, newer CLIs): every token type, exactly. A call the
 * OpenTelemetry export or a copy of this log already counted is not reported again, but is still
 * accounted for, so the shutdown totals do not add it either.
 */
function usageRecord(d: Json, sub: boolean, ts: number, session: string, state: CopilotState, ev: SessionEvents): void {
  const u = obj(d.usage);
  const model = str(u?.model);
  if (!u || !model) return ev.skipped('unknown_shape');
  state.perCall = true;
  if (!sub && model !== state.model) {
    state.model = model;
    ev.meta({ model });
  }
  const call = str(u.apiCallId) ?? str(obj(u.accounting)?.usageId);
  const prompt = numberOf(u.inputTokens);
  const fresh = !call || ev.firstTime(`call:${call}`);
  // The store's row of the same call, read first, counted it (calls.ts).
  const counts = [prompt, ...COUNTS.map((k) => numberOf(u[k]))];
  const stored = !ev.firstTime(
    callKey(session, model, counts, nthTime((state.said ??= {}), `${model} ${counts.join(',')}`)),
  );
  count(model, usageOf(u), prompt, ts, state, ev, fresh && !stored);
  // The prompt of the main agent's last call is the context in use; the CLI's prompt budget its limit.
  if (!sub) ev.context(model, prompt, num(u.maxPromptTokens) || undefined);
  quotas(obj(u.quotaSnapshots), ev);
}

/** Premium-request quotas (`{<quota>: {usedRequests, entitlementRequests, resetDate}}`), where recorded. */
function quotas(q: Json | undefined, ev: SessionEvents): void {
  for (const [name, v] of Object.entries(q ?? {})) {
    const s = obj(v);
    const entitled = num(s?.entitlementRequests);
    if (!s || entitled === 0 || s.isUnlimitedEntitlement === true) continue;
    const resets = time(s.resetDate);
    ev.usageLimit(name, Math.min(1, num(s.usedRequests) / entitled), resets === undefined ? undefined : resets / 1000);
  }
}

/**
 * `session.shutdown`, at the end of each process run: per-model totals, cumulative over the whole
 * session (resumed runs included). Only what they exceed of what this log already accounted for,
 * and of the sums of the store's rows of the session, is counted: nothing more with per-call
 * records or rows, the input and cache tokens with older CLIs that recorded only output per
 * message and no rows. Totals never go backwards, and nothing counts twice.
 */
function shutdown(rec: Json, d: Json, ts: number, file: SessionFile, state: CopilotState, ev: SessionEvents): void {
  const id = str(rec.id);
  const fresh = (!id || ev.firstTime(`shutdown:${id}`)) && !state.external;
  const metrics = Object.entries(obj(d.modelMetrics) ?? {});
  // The store's calls of the session are counted by the store (read or still to be read): the
  // totals count only what exceeds them too. A store that cannot be read now will count them.
  const stored = metrics.length > 0 ? storeTotals(file.path, file.sessionId) : {};
  for (const [model, m] of metrics) {
    const u = obj(obj(m)?.usage);
    if (!u) continue;
    const total = usageOf(u);
    // Totals are cumulative: a damaged one, kept as what was counted, would stop later counting.
    if (!plausibleUsage(total)) {
      ev.skipped('implausible_value');
      continue;
    }
    const before = stored ? maxUsage(state.counted[model] ?? ZERO_USAGE, stored[model] ?? ZERO_USAGE) : total;
    state.counted[model] = maxUsage(before, total);
    const delta = minusUsage(total, before);
    // The requests' average prompt selects a long-context price tier, if the model has one.
    const requests = num(obj(obj(m)?.requests)?.count) || 1;
    if (fresh && delta.input + delta.output + delta.cacheRead + delta.cacheWrite > 0)
      ev.usage(model, delta, numberOf(u.inputTokens) / requests, ts);
    const cost = obj(obj(m)?.requests)?.cost;
    if (cost === undefined) continue;
    const premium = num(cost);
    if (!plausibleAmount(premium)) {
      ev.skipped('implausible_value');
      continue;
    }
    premiumRequests(model, premium, fresh, state, ev);
  }
  // No model made a request (the run failed before one answered): none was billed, to the model selected.
  if (d.totalPremiumRequests === 0 && Object.keys(state.premiumCounted ?? {}).length === 0 && state.model) {
    premiumRequests(state.model, 0, fresh, state, ev);
  }
  const changes = obj(d.codeChanges);
  if (changes && !(plausibleCount(num(changes.linesAdded)) && plausibleCount(num(changes.linesRemoved))))
    ev.skipped('implausible_value');
  else if (changes) {
    const before = state.linesCounted ?? { added: 0, removed: 0 };
    const now = {
      added: Math.max(before.added, num(changes.linesAdded)),
      removed: Math.max(before.removed, num(changes.linesRemoved)),
    };
    state.linesCounted = now;
    if (fresh && now.added + now.removed > before.added + before.removed)
      ev.lines(now.added - before.added, now.removed - before.removed);
  }
  // The process ended: a turn still open did not finish.
  endTurn(d.shutdownType === 'error' ? 'failed' : 'interrupted', ts, state, ev);
}

/**
 * A model's cumulative premium requests: their growth is counted, and the first total counts even
 * at 0 (a free model's or plan's), so that the series exists where the harness recorded none billed.
 */
function premiumRequests(model: string, premium: number, fresh: boolean, state: CopilotState, ev: SessionEvents): void {
  const before = state.premiumCounted?.[model];
  if (before !== undefined && premium <= before) return;
  (state.premiumCounted ??= {})[model] = premium;
  if (fresh) ev.premiumRequests(model, premium - (before ?? 0));
}

/** `tool.execution_start`: the call is counted, unless its permission request counted it already. */
function toolStart(event: Fields, state: CopilotState, ev: SessionEvents): void {
  const d = event.object('data');
  const id = d?.text('toolCallId');
  const name = d?.text('toolName');
  if (!id || !name) return ev.skipped('unknown_shape');
  delete state.requested[id];
  if (state.calls[id]) return;
  const call = classifyTool(name, d!.text('mcpServerName'));
  state.calls[id] = call;
  ev.toolCall(id, call);
}

/**
 * `tool.execution_complete`: which call it ends and whether it failed, or ran a command that
 * exited with an error.
 */
function toolComplete(event: Fields, state: CopilotState, ev: SessionEvents): void {
  const d = event.object('data');
  const id = d?.text('toolCallId');
  if (!id) return ev.skipped('unknown_shape');
  const call = state.calls[id];
  // A call never started, or already ended by a denied permission.
  if (!call) return;
  delete state.calls[id];
  const exit = d!.object('shellExecution')?.number('exitCode');
  ev.toolResult(id, d!.raw('success') === 'false' || (exit !== undefined && exit !== 0), call);
}

/**
 * A call waiting for the user's approval: counted now, as waiting, under the name the model
 * asked for. Approval ends the wait (the call runs on, counted once); denial ends the call.
 */
function permissionRequested(d: Json, state: CopilotState, ev: SessionEvents): void {
  const request = obj(d.permissionRequest);
  const id = str(request?.toolCallId);
  const requestId = str(d.requestId);
  if (!id || !requestId) return;
  // 1.0.102 writes the call's start before its permission request: the call, counted already, waits.
  if (state.calls[id]) {
    state.permissions[requestId] = id;
    return ev.toolWaits(id, 'approval');
  }
  const name = state.requested[id];
  if (!name) return;
  delete state.requested[id];
  const call = classifyTool(name, request?.kind === 'mcp' ? str(request.serverName) : undefined);
  state.calls[id] = call;
  state.permissions[requestId] = id;
  ev.toolCall(id, { ...call, waits: 'approval' });
}

function permissionCompleted(d: Json, state: CopilotState, ev: SessionEvents): void {
  const requestId = str(d.requestId);
  const id = requestId ? state.permissions[requestId] : undefined;
  if (!requestId || !id) return;
  delete state.permissions[requestId];
  const kind = str(obj(d.result)?.kind) ?? '';
  // Approved, the call runs on until its completion; denied, it ends here, as a failure.
  if (kind.startsWith('approved')) return ev.toolWaits(id, undefined);
  const call = state.calls[id];
  delete state.calls[id];
  ev.toolResult(id, true, call);
}

export const copilotCli: LineReader<CopilotState> = {
  ...where,
  kind: 'files',
  listFiles,
  initialState: (file) => ({
    ...(file.sessionId.startsWith(OTEL_PREFIX) ? { otel: {} } : {}),
    ...(file.store ? { store: { after: 0 } } : {}),
    counted: {},
    requested: {},
    calls: {},
    permissions: {},
  }),
  sessionOf: (file, state) => state.otel?.session ?? file.sessionId,
  readLine,
  readStore: (file, state, eventsOf) => readStoreFile(file.path, (state.store ??= { after: 0 }), eventsOf),
  registry,
};
