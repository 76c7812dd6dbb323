// What Claude Code passes a `statusLine` command on stdin (one JSON object, after every message):
// the model, the session's id, context use and cost, and for subscription plans the usage-limit
// windows (`rate_limits`; absent or null for API-key, Bedrock and Vertex users). Only numbers and
// names are taken: never a path, a prompt or anything else the object may carry.

import { jsonObject, num, obj, str, time, type Json } from '../fields.js';

/** Claude Code's names for its windows → the `window` label (the bounded set shared with the other harnesses). */
const WINDOWS: Record<string, string> = {
  five_hour: '5h',
  seven_day: '7d',
  seven_day_opus: '7d_opus',
  seven_day_sonnet: '7d_sonnet',
};

export interface StatusLimit {
  window: string;
  usedRatio: number;
  /** Unix seconds. */
  resetsAt?: number;
}

export interface StatusInput {
  sessionId?: string;
  /** The model's display name (else its id). */
  model?: string;
  /** Share of the context window in use (0 to 1), and the window's size in tokens. */
  contextUsedRatio?: number;
  contextSize?: number;
  /** The session's cost so far as Claude Code estimates it (USD). */
  sessionCostUsd?: number;
  limits: StatusLimit[];
}

/** A present, finite, non-negative number (a field left out or null is none, not 0). */
function present(v: unknown): number | undefined {
  return v === undefined || v === null || v === '' ? undefined : Number.isFinite(Number(v)) ? num(v) : undefined;
}

/** Unix seconds of `resets_at`: written as seconds, milliseconds or an ISO-8601 time. */
function resetsAt(v: unknown): number | undefined {
  const iso = time(v);
  if (iso !== undefined) return iso / 1000;
  const n = present(v);
  return n === undefined || n === 0 ? undefined : n > 1e11 ? n / 1000 : n;
}

function limitsOf(rateLimits: Json | undefined): StatusLimit[] {
  const out: StatusLimit[] = [];
  for (const [name, window] of Object.entries(WINDOWS)) {
    const w = obj(rateLimits?.[name]);
    const used = present(w?.used_percentage);
    if (!w || used === undefined) continue;
    const resets = resetsAt(w.resets_at);
    out.push({ window, usedRatio: Math.min(1, used / 100), ...(resets !== undefined ? { resetsAt: resets } : {}) });
  }
  return out;
}

/** The statusline input, or undefined when the text is not one JSON object. */
export function parseStatusInput(text: string): StatusInput | undefined {
  const o = jsonObject(text);
  if (!o) return undefined;
  const model = obj(o.model);
  const context = obj(o.context_window);
  const used = present(context?.used_percentage);
  const size = present(context?.context_window_size);
  const cost = present(obj(o.cost)?.total_cost_usd);
  const input: StatusInput = { limits: limitsOf(obj(o.rate_limits)) };
  const sessionId = str(o.session_id);
  const modelName = str(model?.display_name) ?? str(model?.id);
  if (sessionId) input.sessionId = sessionId;
  if (modelName) input.model = modelName;
  if (used !== undefined) input.contextUsedRatio = Math.min(1, used / 100);
  if (size) input.contextSize = size;
  if (cost !== undefined) input.sessionCostUsd = cost;
  return input;
}
