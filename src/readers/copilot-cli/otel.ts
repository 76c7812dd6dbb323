// Spans of Copilot CLI's OpenTelemetry file export (opt-in: COPILOT_OTEL_ENABLED=true,
// COPILOT_OTEL_EXPORTER_TYPE=file, COPILOT_OTEL_FILE_EXPORTER_PATH=~/.copilot/otel/<name>.jsonl).
// No capture of it exists: the shape read here is the documented one, one JSON object per span
// with GenAI semantic-convention attributes, either as a plain object or as OTLP/JSON key-value
// pairs. Only `chat` spans count: agent spans repeat the totals of the chats they contain.

import type { SessionEvents } from '../../session/events.js';
import { numberOf, obj, str, time, type Json } from '../fields.js';
import { parseJson } from '../lines.js';
import { callKey, nthTime } from './calls.js';

const USAGE = Buffer.from('"gen_ai.usage.');

/** Attributes as one object, from either `{"k": v}` or OTLP/JSON `[{"key": k, "value": {"intValue": "1"}}]`. */
function attributes(v: unknown): Json {
  if (!Array.isArray(v)) return obj(v) ?? {};
  const out: Json = {};
  for (const kv of v.map(obj)) {
    const value = obj(kv?.value);
    const key = str(kv?.key);
    if (key && value)
      out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
  }
  return out;
}

/** A span's end (ms): `[seconds, nanoseconds]`, Unix nanoseconds as OTLP/JSON writes them, or ISO-8601. */
function endTime(span: Json): number | undefined {
  const t = span.endTime;
  if (Array.isArray(t) && typeof t[0] === 'number' && typeof t[1] === 'number') return t[0] * 1000 + t[1] / 1e6;
  const nanos = Number(span.endTimeUnixNano);
  if (nanos > 0) return nanos / 1e6;
  return time(t);
}

/**
 * One line of the export: the usage of one model call, reported for the session the span names.
 * `setSession` is told first, so that the events go to that session. A call that the session's
 * own log already counted (`session.usage_record` of the same response id), or the store's row of
 * it (known by what it says, calls.ts; `said` is this file's tally), is not counted again.
 */
export function readSpan(
  line: Buffer,
  ev: SessionEvents,
  setSession: (id: string) => void,
  said: Record<string, number>,
): void {
  // Spans without token counts (tools, agents without usage) and metric lines are not decoded.
  if (!line.includes(USAGE)) return;
  const span = parseJson(line);
  if (!span) return ev.skipped('parse_error');
  const a = attributes(span.attributes);
  const op = str(a['gen_ai.operation.name']);
  if (op !== undefined && op !== 'chat') return;
  const session = str(a['gen_ai.conversation.id']);
  const model = str(a['gen_ai.response.model']) ?? str(a['gen_ai.request.model']);
  if (!session || !model) return ev.skipped('unknown_shape');
  setSession(session);
  const ts = endTime(span) ?? Date.now();
  ev.activity(ts);
  const id = str(a['gen_ai.response.id']);
  const fresh = !id || ev.firstTime(`call:${id}`);
  // GenAI conventions: input_tokens includes cached input (read and written).
  const prompt = numberOf(a['gen_ai.usage.input_tokens']);
  const cacheRead = numberOf(a['gen_ai.usage.cache_read.input_tokens']);
  // Not `||`: a cache write that is no number (NaN) must reach the store, which skips it.
  const written = numberOf(a['gen_ai.usage.cache_write.input_tokens']);
  const cacheWrite = written === 0 ? numberOf(a['gen_ai.usage.cache_creation.input_tokens']) : written;
  const output = numberOf(a['gen_ai.usage.output_tokens']);
  const reasoning = numberOf(a['gen_ai.usage.reasoning.output_tokens']);
  const counts = [prompt, output, cacheRead, cacheWrite, reasoning];
  // Both keys marked, whichever was seen: the other source finds the one it knows.
  const stored = !ev.firstTime(
    callKey(session, model, counts, nthTime(said, `${session} ${model} ${counts.join(',')}`)),
  );
  if (!fresh || stored) return;
  ev.usage(
    model,
    { input: Math.max(0, prompt - cacheRead - cacheWrite), output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning },
    prompt,
    ts,
  );
}
