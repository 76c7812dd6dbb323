// One Zed thread: the JSON of a `threads` row (`DbThread`, version 0.3.0, in Zed's
// `crates/agent/src/db.rs`), saved whole after every change. Messages are `{"User": {id, content}}`,
// `{"Agent": {content, tool_results}}` (`ToolUse` items; each result's `is_error`) and `"Resume"`
// (the person pressed continue); they carry no times: the row's `created_at` and `updated_at` are
// all there is. Zed records no turn end or outcome: a prompt's turn ends when an answer to it is
// saved with every call's result, or the next prompt is (as completed; a turn cut short shows the
// same). A prompt with no answer saved, or an answer with a call still running, is a turn still
// open: Zed saves a thread as it changes and does not persist whether it is still generating.
//
// Tokens: `cumulative_token_usage`, the thread's running sum over its model requests (counted by
// its growth). `request_token_usage` holds only the last request of each prompt: it is the context
// in use, never summed. What the sum's fields mean is the provider's event mapper's (see unsaidOf).

import type { SessionEvents } from '../../session/events.js';
import type { UsagePart } from '../../session/types.js';
import { growth, skipTotals, tokenCounts, type Marks } from '../cumulative.js';
import { obj, str, type Json } from '../fields.js';
import { classifyTool } from './tools.js';

/** What the row says of its thread besides its JSON. */
export interface ThreadRow {
  id: string;
  /** The row's `created_at` (ms), or its `updated_at` where there is none. */
  created: number;
  updated: number;
  cwd?: string;
  /** A subagent's thread (`parent_id`): its one User message is the goal it was given, not a prompt. */
  child: boolean;
}

/**
 * The token types a provider's `cumulative_token_usage` does not give as the metric contract
 * counts them. Anthropic's mapper gives input without cache and both cache fields (Zed's cloud,
 * `zed.dev`, passes Anthropic's events through for Claude); OpenAI's Responses mapper input without
 * cache reads and the reads, no writes. The chat-completions mapper of OpenAI-compatible providers
 * (LM Studio, custom endpoints) counts the cache inside input and none apart, and the other
 * providers' mappers are not verified: their output alone is counted.
 */
export function unsaidOf(provider: string, model: string): readonly UsagePart[] {
  if (provider === 'anthropic' || (provider === 'zed.dev' && model.startsWith('claude'))) return [];
  if (provider === 'openai') return ['cache_write'];
  return ['input', 'cache_read', 'cache_write'];
}

export function readThread(data: Json, row: ThreadRow, marks: Marks, ev: SessionEvents): void {
  if (row.cwd) ev.meta({ cwd: row.cwd });
  const model = str(obj(data.model)?.model);
  const provider = str(obj(data.model)?.provider) ?? '';
  if (model) ev.meta({ model });
  ev.activity(row.created);
  ev.activity(row.updated);
  // Threads of Zed's first agent (no version) are upgraded by Zed when it opens them.
  if (data.version !== '0.3.0' || !Array.isArray(data.messages)) return ev.skipped('unknown_shape');
  const lastPrompt = readMessages(data.messages, row, ev);
  readUsage(obj(data.cumulative_token_usage), row, model ?? 'unknown', unsaidOf(provider, model ?? ''), marks, ev);
  // The last request of the last prompt: what the context holds now.
  const last = lastPrompt === undefined ? undefined : obj(obj(data.request_token_usage)?.[lastPrompt]);
  const context =
    last &&
    tokenCounts([
      last.input_tokens,
      last.cache_read_input_tokens,
      last.cache_creation_input_tokens,
      last.output_tokens,
    ]);
  if (model && context)
    ev.context(
      model,
      context.reduce((a, n) => a + n, 0),
    );
}

/** Prompts, turns and tool calls, each counted once however often the thread is saved; the last prompt's id. */
function readMessages(messages: unknown[], row: ThreadRow, ev: SessionEvents): string | undefined {
  let prompt: string | undefined;
  let first = true;
  // The prompt has an answer; the last message is one whose every call has its result (the turn is over).
  let answered = false;
  let over = false;
  const end = () => {
    if (prompt !== undefined && ev.firstTime(`end:${row.id}:${prompt}`)) ev.turnEnded('completed', row.updated);
  };
  messages.forEach((m, i) => {
    const o = obj(m);
    const user = obj(o?.User);
    const agent = obj(o?.Agent);
    if (user) {
      const id = str(user.id);
      if (!id) return ev.skipped('unknown_shape');
      // A prompt after an answer: the turn before it ended, whatever its answer's calls show.
      if (answered) end();
      answered = false;
      over = false;
      // The thread's first prompt was written when it was created; the others some time up to its last save.
      const ts = first ? row.created : row.updated;
      first = false;
      prompt = id;
      if (!ev.firstTime(`turn:${row.id}:${id}`)) return;
      ev.turnStarted(ts);
      if (!row.child) ev.prompt(ts);
    } else if (agent) {
      answered = true;
      over = readAnswer(agent, row, ev);
    } else if (o && 'Compaction' in o) {
      // Zed-derived forks' summary of the thread so far (not in upstream Zed's format).
      if (ev.firstTime(`compaction:${row.id}:${i}`)) ev.compaction();
    }
  });
  if (over) end();
  return prompt;
}

/**
 * An answer's calls and their results; whether every call has its result. Zed saves a thread as
 * it changes: an answer with a call still running (or waiting for the person's approval) is a turn
 * going on.
 */
function readAnswer(agent: Json, row: ThreadRow, ev: SessionEvents): boolean {
  const results = obj(agent.tool_results) ?? {};
  let done = true;
  for (const item of Array.isArray(agent.content) ? agent.content : []) {
    const use = obj(obj(item)?.ToolUse);
    const id = str(use?.id);
    if (!id) continue;
    if (!Object.hasOwn(results, id)) done = false;
    if (ev.firstTime(`call:${row.id}:${id}`)) ev.toolCall(id, classifyTool(str(use!.name) ?? ''));
  }
  for (const [key, value] of Object.entries(results)) {
    const result = obj(value);
    const id = str(result?.tool_use_id) ?? key;
    if (ev.firstTime(`result:${row.id}:${id}`))
      ev.toolResult(id, result?.is_error === true, classifyTool(str(result?.tool_name) ?? ''));
  }
  return done;
}

/**
 * The growth of the thread's running sum. Zed omits a field that is 0, and before zed#58378 never
 * filled the sum: `{}` is not recorded (or nothing yet), no usage at all. The marks follow every
 * field the sum holds, counted or not, so that a thread whose provider changes counts no earlier
 * tokens under the new one.
 */
function readUsage(
  sum: Json | undefined,
  row: ThreadRow,
  model: string,
  unsaid: readonly UsagePart[],
  marks: Marks,
  ev: SessionEvents,
): void {
  if (!sum || Object.keys(sum).length === 0) return;
  const fields = [sum.input_tokens, sum.output_tokens, sum.cache_read_input_tokens, sum.cache_creation_input_tokens];
  const totals = tokenCounts(fields);
  if (!totals) return skipTotals(ev, row.id, fields);
  const fresh = ev.firstTime(`totals:${row.id}:${totals.join(',')}`);
  const [input, output, cacheRead, cacheWrite] = growth(marks, row.id, totals) as [number, number, number, number];
  const said = (t: UsagePart, n: number) => (unsaid.includes(t) ? 0 : n);
  const delta = {
    input: said('input', input),
    output,
    cacheRead: said('cache_read', cacheRead),
    cacheWrite: said('cache_write', cacheWrite),
    cacheWrite1h: 0,
    reasoning: 0,
  };
  if (!fresh || !(delta.input || delta.output || delta.cacheRead || delta.cacheWrite)) return;
  ev.usage(model, delta, delta.input + delta.cacheRead + delta.cacheWrite, row.updated, undefined, unsaid);
}
