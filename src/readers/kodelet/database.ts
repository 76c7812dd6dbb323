// Reading Kodelet's `storage.db`. A conversation is one row, rewritten whole after every model call
// and at a turn's end: `usage` holds running totals (counted by their growth), `raw_messages` the
// provider's message list (Anthropic, OpenAI chat, or the Responses API's items), `tool_results`
// each call's outcome. Messages carry no ids or times: prompts and turn ends count by how many the
// list holds beyond what was counted (marks kept per conversation), tool calls by their ids. A
// compaction rewrites the list to a summary: the marks restart from it, nothing counts twice.

import { jsonObject, jsonValue, obj, str, type Json } from '../fields.js';
import type { SessionEvents } from '../../session/events.js';
import { cursorMs, requireColumns, selectList, type Db } from '../sqlite.js';
import type { TurnOutcome } from '../../session/types.js';
import { countGrowth, dollars, skipTotals, tokenCounts, type Marks } from '../cumulative.js';
import { classifyTool } from './tools.js';

export interface KodeletState {
  sig?: string;
  /** Conversations updated at or after this time (ms) are read again. */
  since: number;
  /** Token and cost totals counted, per conversation. */
  marks: Marks;
  /** Per conversation: prompts and turn ends counted, messages and output tokens at the last read. */
  convs: Record<string, ConvMarks>;
}

const OVERLAP_MS = 5000;

/**
 * What was counted of a conversation's messages: prompts and turn ends (by position, within the
 * current compaction epoch), the list's length and the output tokens at the last read.
 */
interface ConvMarks {
  epoch: number;
  prompts: number;
  ended: number;
  messages: number;
  output: number;
  outputAtEnd: number;
}

/** Go's `time.Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST m=+1.2`; its first three fields. */
export function goTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)? ([+-]\d\d)(\d\d)/.exec(v);
  const t = m ? Date.parse(`${m[1]}T${m[2]}${(m[3] ?? '').slice(0, 4)}${m[4]}:${m[5]}`) : Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** What a conversation's messages say, whatever the provider's shape. */
interface Walk {
  /** Each prompt's turn, in order, with how it ended (none: still open). */
  turns: (TurnOutcome | undefined)[];
  calls: Map<string, string>;
  /** Calls with a result, and those whose result is an error. */
  done: Set<string>;
  failed: Set<string>;
  /** Compaction items (the Responses API keeps them in the list). */
  compactions: number;
  answers: number;
  /** The list ends with a prompt nothing answered. */
  trailingPrompt: boolean;
}

function walk(messages: unknown[]): Walk {
  const w: Walk = {
    turns: [],
    calls: new Map(),
    done: new Set(),
    failed: new Set(),
    compactions: 0,
    answers: 0,
    trailingPrompt: false,
  };
  const prompt = () => {
    // A prompt while the previous turn had no answer: that turn was given up.
    if (w.turns.length && w.turns[w.turns.length - 1] === undefined) w.turns[w.turns.length - 1] = 'interrupted';
    w.turns.push(undefined);
    w.trailingPrompt = true;
  };
  const answer = (calls: { id?: string; name?: string }[]) => {
    w.trailingPrompt = false;
    w.answers++;
    for (const c of calls) if (c.id) w.calls.set(c.id, c.name ?? '');
    if (!calls.length && w.turns.length && w.turns[w.turns.length - 1] === undefined)
      w.turns[w.turns.length - 1] = 'completed';
  };
  const result = (id: string | undefined, error: boolean) => {
    w.trailingPrompt = false;
    if (id) w.done.add(id);
    if (id && error) w.failed.add(id);
  };
  for (const raw of messages) {
    const m = obj(raw);
    if (!m) continue;
    if (m.type === 'function_call') answer([{ id: str(m.call_id), name: str(m.name) }]);
    else if (m.type === 'function_call_output') result(str(m.call_id), false);
    else if (m.type === 'compaction') w.compactions++;
    else if (m.type === 'reasoning') continue;
    else if (m.role === 'user') {
      const blocks = Array.isArray(m.content) ? m.content.map(obj) : [];
      const results = blocks.filter((b) => b?.type === 'tool_result');
      for (const b of results) result(str(b!.tool_use_id), b!.is_error === true);
      if (typeof m.content === 'string' || blocks.some((b) => b?.type === 'text')) prompt();
    } else if (m.role === 'assistant') {
      const blocks = Array.isArray(m.content) ? m.content.map(obj) : [];
      const calls = [
        ...blocks.filter((b) => b?.type === 'tool_use').map((b) => ({ id: str(b!.id), name: str(b!.name) })),
        ...(Array.isArray(m.tool_calls)
          ? m.tool_calls.map(obj).map((c) => ({ id: str(c?.id), name: str(obj(c?.function)?.name) }))
          : []),
      ];
      answer(calls);
    } else if (m.role === 'tool') result(str(m.tool_call_id), false);
  }
  return w;
}

export function readKodelet(db: Db, state: KodeletState, eventsOf: (id: string) => SessionEvents): void {
  const cols = requireColumns(db, 'conversations', ['id', 'raw_messages', 'usage', 'updated_at']);
  // Go's time strings do not compare as text across zones: every row's time is parsed here, taken
  // from Kodelet's index on it where there is one (in the table it follows the large messages).
  const index = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'idx_conversations_updated_at'")
    .get();
  const stamps = db
    .prepare(
      `SELECT rowid AS row, updated_at FROM conversations${index ? ' INDEXED BY idx_conversations_updated_at' : ''}`,
    )
    .all() as { row: number; updated_at: unknown }[];
  const byRow =
    db.prepare(`SELECT ${selectList(cols, ['id', 'raw_messages', 'usage', 'updated_at', 'created_at', 'metadata', 'tool_results', 'cwd'])}
    FROM conversations WHERE rowid = ?`);
  let newest = state.since;
  for (const { row: rowid, updated_at } of stamps) {
    const updated = goTime(updated_at);
    if (updated !== undefined && updated < state.since - OVERLAP_MS) continue;
    const row = byRow.get(rowid) as Json | undefined;
    const id = str(row?.id);
    if (!row || !id) continue;
    if (updated === undefined) {
      // Counted once, not on every read.
      const ev = eventsOf(id);
      if (ev.firstTime(`bad-time:${id}:${String(updated_at)}`)) ev.skipped('unknown_shape');
      continue;
    }
    newest = Math.max(newest, cursorMs(updated));
    readConversation(id, row, updated, eventsOf(id), state);
  }
  state.since = newest;
}

function readConversation(id: string, row: Json, updated: number, ev: SessionEvents, state: KodeletState): void {
  const meta = jsonObject(str(row.metadata) ?? '') ?? {};
  const cwd = str(row.cwd);
  const model = str(meta.model) ?? 'unknown';
  if (cwd) ev.meta({ cwd });
  ev.meta({ model });
  const created = goTime(row.created_at);
  if (created) ev.activity(created);
  ev.activity(updated);

  const usage = jsonObject(str(row.usage) ?? '');
  const tokens =
    usage &&
    tokenCounts([usage.inputTokens, usage.outputTokens, usage.cacheCreationInputTokens, usage.cacheReadInputTokens]);
  const costs = usage
    ? [usage.inputCost, usage.outputCost, usage.cacheCreationCost, usage.cacheReadCost].map(dollars)
    : [];
  const messages = jsonValue(str(row.raw_messages) ?? '');
  if (!tokens || costs.some((c) => Number.isNaN(c))) return skipTotals(ev, id, [row.usage]);
  if (!Array.isArray(messages)) {
    if (ev.firstTime(`bad-messages:${id}:${String(row.updated_at)}`)) ev.skipped('parse_error');
    return;
  }
  const [input, output, cacheWrite, cacheRead] = tokens as [number, number, number, number];
  // In the Responses API mode Kodelet's input count still holds the cache reads.
  const uncached = meta.api_mode === 'responses' ? Math.max(0, input - cacheRead) : input;
  const cost = costs.reduce<number>((a, c) => a + (c ?? 0), 0);
  countGrowth(
    ev,
    state.marks,
    id,
    model,
    { input: uncached, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning: 0 },
    cost,
    updated,
  );
  const limit = usage.maxContextWindow;
  if (typeof limit === 'number' && limit > 0)
    ev.context(model, typeof usage.currentContextWindow === 'number' ? usage.currentContextWindow : 0, limit);

  const w = walk(messages);
  const prev = state.convs[id];
  const mark: ConvMarks = prev ?? { epoch: 0, prompts: 0, ended: 0, messages: 0, output: 0, outputAtEnd: 0 };
  const results = obj(jsonValue(str(row.tool_results) ?? '')) ?? {};
  // A compaction: the list shrank, holds a Responses compaction item not seen yet, or (seen for the
  // first time) holds no answer although calls ran (their results are kept, their messages gone).
  // A first prompt whose answer's tool call is still running also shows no answer (Kodelet drops a
  // trailing tool call when it saves), but no result either.
  const compacted =
    (prev !== undefined && messages.length < prev.messages) ||
    (prev === undefined && w.answers === 0 && Object.keys(results).some((callId) => !w.calls.has(callId)));
  if (
    (compacted || w.compactions > 0) &&
    ev.firstTime(`compaction:${id}:${compacted ? String(row.updated_at) : w.compactions}`)
  )
    ev.compaction();

  for (const [callId, r] of Object.entries(results)) {
    if (!w.calls.has(callId)) w.calls.set(callId, str(obj(r)?.toolName) ?? '');
    w.done.add(callId);
    if (obj(r)?.success === false) w.failed.add(callId);
  }
  for (const [callId, name] of w.calls) {
    const call = classifyTool(name);
    if (ev.firstTime(`call:${callId}`)) ev.toolCall(callId, call);
    if (w.done.has(callId) && ev.firstTime(`result:${callId}`)) ev.toolResult(callId, w.failed.has(callId), call);
  }

  let from = mark;
  if (compacted) {
    // The list starts with the summary, which stands for the turn it compacted: no prompt. That
    // turn ends here if it was open (or, seen first now, had ended: Kodelet saves at a turn's end).
    if (w.turns.length === 1 && w.turns[0] === undefined) w.turns[0] = 'completed';
    const open = prev !== undefined && prev.ended < prev.prompts;
    from = { ...mark, epoch: mark.epoch + 1, prompts: prev ? 1 : 0, ended: prev && !open ? 1 : 0 };
  } else if (w.trailingPrompt && output === mark.outputAtEnd && w.turns.at(-1) === undefined) {
    // A prompt left unanswered with no model output since the last turn: the call failed or was
    // cancelled (Kodelet saves no outcome). With output, the answer's tool call is still running
    // (Kodelet drops a trailing tool call when it saves).
    w.turns[w.turns.length - 1] = 'interrupted';
  }
  let ended = from.ended;
  w.turns.forEach((outcome, i) => {
    // Keys by position within the epoch: a conversation read again from the start counts nothing.
    const key = `${id}:${from.epoch}:${i}`;
    if (i >= from.prompts && ev.firstTime(`turn:${key}`)) {
      ev.turnStarted(updated);
      if (!(compacted && i === 0)) ev.prompt(updated);
    }
    if (outcome && i >= from.ended) {
      if (ev.firstTime(`end:${key}`)) ev.turnEnded(outcome, updated);
      ended = i + 1;
    }
  });
  state.convs[id] = {
    epoch: from.epoch,
    prompts: Math.max(from.prompts, w.turns.length),
    ended,
    messages: messages.length,
    output,
    outputAtEnd: ended > from.ended ? output : mark.outputAtEnd,
  };
}
