// What Claude Code passes a `statusLine` command on stdin (one JSON object, after every message):
// the model, the session's id, context use and cost, and for subscription plans the usage-limit
// windows (`rate_limits`; absent or null for API-key, Bedrock and Vertex users). Only numbers and
// names are taken: never a path, a prompt or anything else the object may carry. What is recorded
// is bounded and checked: the statusline's file is read by the exporter after every message.

import { plausibleAmount, plausibleCount } from '../../session/types.js';
import { jsonObject, num, obj, str, time, type Json } from '../fields.js';

// Claude Code's session ids are UUIDs: an id longer than this, or of other characters, is none.
const SESSION_ID = /^[\w.:-]{1,128}$/;
// A window resets between 2000 and 2100 (Unix seconds): outside, the number is damage.
const RESETS_RANGE = [Date.UTC(2000, 0, 1) / 1000, Date.UTC(2100, 0, 1) / 1000] as const;

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

/** A percentage as a share from 0 to 1 (above 100: all used); a negative one is none. */
function share(v: unknown): number | undefined {
  const n = Number(v);
  return present(v) === undefined || n < 0 ? undefined : Math.min(1, n / 100);
}

/** Unix seconds of `resets_at`: written as seconds, milliseconds or an ISO-8601 time; none outside RESETS_RANGE. */
function resetsAt(v: unknown): number | undefined {
  const iso = time(v);
  const n = present(v);
  const seconds = iso !== undefined ? iso / 1000 : n !== undefined && n > 1e11 ? n / 1000 : n;
  return seconds !== undefined && seconds >= RESETS_RANGE[0] && seconds < RESETS_RANGE[1] ? seconds : undefined;
}

function limitsOf(rateLimits: Json | undefined): StatusLimit[] {
  const out: StatusLimit[] = [];
  for (const [name, window] of Object.entries(WINDOWS)) {
    const w = obj(rateLimits?.[name]);
    const used = share(w?.used_percentage);
    if (!w || used === undefined) continue;
    const resets = resetsAt(w.resets_at);
    out.push({ window, usedRatio: used, ...(resets !== undefined ? { resetsAt: resets } : {}) });
  }
  return out;
}

/** The statusline input, or undefined when the text is not one JSON object. */
export function parseStatusInput(text: string): StatusInput | undefined {
  const o = jsonObject(text);
  if (!o) return undefined;
  const model = obj(o.model);
  const context = obj(o.context_window);
  const used = share(context?.used_percentage);
  const size = present(context?.context_window_size);
  const cost = present(obj(o.cost)?.total_cost_usd);
  const input: StatusInput = { limits: limitsOf(obj(o.rate_limits)) };
  const sessionId = str(o.session_id);
  const modelName = str(model?.display_name) ?? str(model?.id);
  if (sessionId && SESSION_ID.test(sessionId)) input.sessionId = sessionId;
  if (modelName) input.model = modelName;
  if (used !== undefined) input.contextUsedRatio = used;
  if (size && plausibleCount(size)) input.contextSize = size;
  if (cost !== undefined && plausibleAmount(cost)) input.sessionCostUsd = cost;
  return input;
}
