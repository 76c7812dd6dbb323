// Reading Warp's `warp.sqlite` incrementally. Two tables are read:
// - `ai_queries`: one row per exchange a query started (Warp writes no other: those carrying a
//   tool's result back are not; it keeps the newest 10 000), upserted by exchange id as it runs:
//   `output_status`, the status of the query's answer stream, goes from "Pending" to "Completed",
//   "Failed" or "Cancelled". Rows are read from the last id read on, and those still pending again
//   at every read. They give the prompts, turns and outcomes, the folder and model.
// - `agent_conversations`: one row per conversation (Warp keeps 200, evicting the oldest trees),
//   its `conversation_data` JSON rewritten whole as the conversation grows (`last_modified_at`,
//   whole seconds in UTC, stamped by a trigger). It holds running totals: the cost
//   (`total_provider_cost_in_cents`), tokens by type (`total_charged_usage`, newer builds only),
//   tool calls per tool (`tool_usage_metadata.*.count`) and lines edited. What grew since the
//   last read counts, never less. Its `token_usage[]` holds, per model, one total of every kind of
//   token (no split by type): no metric holds such a total, so it is not exported.
// `agent_tasks` (messages, tool calls and results as protobuf) is not read: decoding it needs
// Warp's .proto files. So tool failures and compactions are not counted.

import type { SessionEvents } from '../../session/events.js';
import type { ToolCall, ToolKind, TurnOutcome, Usage, UsagePart } from '../../session/types.js';
import { NO_REASONING, TOKEN_TYPES } from '../../session/vocabulary.js';
import { countGrowth, dollars, growth, skipTotals, tokenCounts, type Marks } from '../cumulative.js';
import { rowJson, type Parsed } from '../document.js';
import { obj, str, type Json } from '../fields.js';
import { cursorMs, requireColumns, rowsById, selectList, type Db } from '../sqlite.js';
import { builtinTool, mcpTool } from '../tools.js';

export interface WarpState {
  sig?: string;
  /** Conversations modified at or after this time (ms, less an overlap) are read again. */
  since: number;
  /** The last `ai_queries` row id read. */
  query: number;
  /** Ids of `ai_queries` rows read again at the next read: exchanges still running. */
  pending: number[];
  /** The running totals counted, per conversation: usage, tool calls, lines. */
  marks: Marks;
}

// `last_modified_at` is stamped in whole seconds, before its transaction commits.
const OVERLAP_MS = 5000;
// Exchanges left "Pending" by a Warp that quit mid-answer stay so: only the newest are read again.
const MAX_PENDING = 64;

const OUTCOMES: Record<string, TurnOutcome | null> = {
  Pending: null,
  Completed: 'completed',
  Failed: 'failed',
  Cancelled: 'interrupted',
};

// `total_charged_usage`'s token buckets, in the order of a Usage's first four.
const CHARGED = ['input_tokens', 'output_tokens', 'input_cache_read_tokens', 'input_cache_write_tokens'] as const;
// A conversation without them says no token type: only its cost counts.
const NO_TOKENS: readonly UsagePart[] = [...TOKEN_TYPES, 'reasoning'];

// `tool_usage_metadata`'s counters (`<tool>_stats.count`) by tool kind; the MCP ones name no server.
const KINDS: Record<string, ToolKind> = {
  run_command: 'execute',
  write_to_long_running_shell_command: 'execute',
  read_shell_command_output: 'read',
  read_files: 'read',
  search_codebase: 'search',
  grep: 'search',
  file_glob: 'search',
  apply_file_diff: 'edit',
  suggest_plan: 'plan',
  suggest_create_plan: 'plan',
  use_computer: 'other',
};
const MCP = ['call_mcp_tool', 'read_mcp_resource'];
const TOOLS = [...Object.keys(KINDS), ...MCP];
const callOf = (tool: string): ToolCall =>
  MCP.includes(tool) ? mcpTool(undefined) : builtinTool(tool, { kinds: KINDS });
// A subagent's conversation names its parent; the call that started it is in no counter.
const SPAWN: ToolCall = { tool: 'subagent', kind: 'agent' };

const QUERY_COLUMNS = [
  'id',
  'exchange_id',
  'conversation_id',
  'start_ts',
  'input',
  'working_directory',
  'output_status',
  'model_id',
] as const;
type QueryRow = Record<(typeof QUERY_COLUMNS)[number], unknown> & { id: number };
type ConversationRow = { conversation_id?: unknown; conversation_data: unknown; last_modified_at: unknown };
interface Conversation {
  data?: Json;
  /** Why it has no `data` (a skip's reason). */
  bad?: 'parse_error' | 'file_too_large';
  modified?: number;
  parent?: string;
}
interface Latest {
  id: number;
  cwd?: string;
  model?: string;
}

/** A `TIMESTAMP` as Warp writes them (naive UTC: `2026-12-07 11:45:07`, maybe with a fraction), in ms. */
export function utcMs(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?$/.test(v)) return undefined;
  const ms = Date.parse(`${v.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A time as SQLite's CURRENT_TIMESTAMP writes it, which a `TIMESTAMP` column compares with as text. */
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * A JSON column's value, parsed under a document's bound (document.ts: a conversation is rewritten
 * whole, as a document is); where it has none, why.
 */
function columnJson(text: unknown): Parsed {
  return typeof text === 'string' ? rowJson(text) : 'parse_error';
}

/**
 * What an exchange's `output_status` says: a JSON string (or an enum variant with data: its name);
 * `file_too_large` where its data is too dense to parse.
 */
function outcomeOf(text: unknown): TurnOutcome | null | 'file_too_large' | undefined {
  const parsed = columnJson(text);
  if (parsed === 'file_too_large') return parsed;
  const v = typeof parsed === 'string' ? undefined : parsed.value;
  const keys = Object.keys(obj(v) ?? {});
  const name = typeof v === 'string' ? v : keys.length === 1 ? keys[0]! : '';
  return Object.hasOwn(OUTCOMES, name) ? OUTCOMES[name] : undefined;
}

/**
 * Whether an exchange's `input` holds a query with text (none: no turn of its own), or why it could
 * not be read (`file_too_large`: its context, attached whole, too dense to parse). Its text is not kept.
 */
function queryOf(input: unknown): { text: boolean } | 'file_too_large' | undefined {
  const parsed = columnJson(input);
  if (parsed === 'file_too_large') return parsed;
  const v = typeof parsed === 'string' ? undefined : parsed.value;
  const query = Array.isArray(v) ? v.map((i) => obj(obj(i)?.Query)).find((q) => q !== undefined) : undefined;
  return query && { text: typeof query.text === 'string' && query.text.trim() !== '' };
}

export function readWarp(db: Db, state: WarpState, eventsOf: (id: string) => SessionEvents): void {
  const queryCols = requireColumns(db, 'ai_queries', [
    'id',
    'exchange_id',
    'conversation_id',
    'start_ts',
    'output_status',
  ]);
  requireColumns(db, 'agent_conversations', ['conversation_id', 'conversation_data', 'last_modified_at']);

  const conversations = rowsById<ConversationRow>(
    db,
    'SELECT conversation_data, last_modified_at FROM agent_conversations WHERE conversation_id = ?',
  );
  const parsed = new Map<string, Conversation | undefined>();
  const conversationOf = (id: string): Conversation | undefined => {
    if (!parsed.has(id)) {
      const row = conversations.get(id);
      const json = row && columnJson(row.conversation_data);
      const data = json && typeof json !== 'string' ? obj(json.value) : undefined;
      parsed.set(
        id,
        row && {
          data,
          bad: data ? undefined : typeof json === 'string' ? json : 'parse_error',
          modified: utcMs(row.last_modified_at),
          parent: str(data?.parent_conversation_id) || undefined,
        },
      );
    }
    return parsed.get(id);
  };

  // A database made anew (ids from 1 again) is read from its start: exchanges are counted once by id.
  const maxId = db.prepare('SELECT MAX(id) FROM ai_queries').pluck().get();
  if (typeof maxId !== 'number' || maxId < state.query) state.query = 0;
  const after = state.query;
  const rows = db
    .prepare(
      `SELECT ${selectList(queryCols, QUERY_COLUMNS)} FROM ai_queries
    WHERE id > ? OR id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(after, JSON.stringify(state.pending)) as QueryRow[];

  // Each conversation's latest exchange: the newest row read past the cursor, else looked up.
  const latest = new Map<string, Latest | undefined>();
  for (const q of rows) {
    const conv = str(q.conversation_id);
    if (conv && q.id > after)
      latest.set(conv, { id: q.id, cwd: str(q.working_directory) || undefined, model: str(q.model_id) || undefined });
  }
  const lookup = db.prepare(
    'SELECT id, working_directory, model_id FROM ai_queries WHERE conversation_id = ? ORDER BY id DESC LIMIT 1',
  );
  const latestOf = (conv: string): Latest | undefined => {
    if (!latest.has(conv)) {
      const r = lookup.get(conv) as { id: number; working_directory: unknown; model_id: unknown } | undefined;
      latest.set(
        conv,
        r && { id: r.id, cwd: str(r.working_directory) || undefined, model: str(r.model_id) || undefined },
      );
    }
    return latest.get(conv);
  };
  // A conversation's events, its folder and model said first (counters are labelled by its project).
  const opened = new Set<string>();
  const open = (conv: string): SessionEvents => {
    const ev = eventsOf(conv);
    if (!opened.has(conv)) {
      opened.add(conv);
      const l = latestOf(conv);
      ev.meta({ cwd: l?.cwd, model: l?.model });
    }
    return ev;
  };

  const pending: number[] = [];
  for (const q of rows) {
    state.query = Math.max(state.query, q.id);
    const conv = str(q.conversation_id);
    if (!conv) continue;
    const exchange = str(q.exchange_id);
    const start = utcMs(q.start_ts);
    const outcome = outcomeOf(q.output_status);
    const conversation = conversationOf(conv);
    // A running exchange whose conversation is not written yet: whether it is a subagent's (whose
    // query is its goal, no prompt) is known once it is.
    if (outcome === null && !conversation) {
      pending.push(q.id);
      continue;
    }
    const ev = open(conv);
    if (!exchange || start === undefined || outcome === undefined || outcome === 'file_too_large') {
      ev.skipped(outcome === 'file_too_large' ? outcome : 'unknown_shape');
      continue;
    }
    ev.meta({ cwd: str(q.working_directory) || undefined, model: str(q.model_id) || undefined });
    ev.activity(start);
    const query = queryOf(q.input);
    if (query === 'file_too_large') ev.skipped(query);
    if (typeof query !== 'object') continue;
    if (ev.firstTime(`turn:${exchange}`)) {
      ev.turnStarted(start);
      if (query.text && !conversation?.parent) ev.prompt(start);
    }
    if (outcome === null) {
      pending.push(q.id);
      continue;
    }
    // Warp writes no end time: the latest exchange ended when its conversation was last written.
    const modified = conversation?.modified;
    const end = latestOf(conv)?.id === q.id && modified !== undefined && modified > start ? modified : start;
    if (ev.firstTime(`end:${exchange}`)) ev.turnEnded(outcome, end);
  }
  state.pending = pending.slice(-MAX_PENDING);

  let newest = state.since;
  const changed = db
    .prepare(
      `SELECT conversation_id, conversation_data, last_modified_at FROM agent_conversations
    WHERE last_modified_at >= ? ORDER BY last_modified_at`,
    )
    .all(stamp(Math.max(0, state.since - OVERLAP_MS))) as ConversationRow[];
  for (const row of changed) {
    const conv = str(row.conversation_id);
    if (conv) conversations.set(conv, row);
    const conversation = conv && conversationOf(conv);
    if (!conv || !conversation) continue;
    const ev = open(conv);
    if (conversation.modified !== undefined) {
      ev.activity(conversation.modified);
      newest = Math.max(newest, cursorMs(conversation.modified));
    }
    if (!conversation.data) {
      // Read again while it is within the overlap: skipped once per version.
      if (ev.firstTime(`bad:${conv}:${String(row.last_modified_at)}`)) ev.skipped(conversation.bad ?? 'parse_error');
      continue;
    }
    const usage = obj(conversation.data.conversation_usage_metadata);
    // A conversation not answered yet (its event sequence alone) has no usage.
    if (!usage) continue;
    const ts = conversation.modified ?? 0;
    countUsage(ev, state.marks, conv, latestOf(conv)?.model ?? lastModel(usage.token_usage), usage, ts);
    countTools(ev, state.marks, conv, obj(usage.tool_usage_metadata));
    // A subagent's conversation: the call that started it counts in its parent's, once.
    const parent = conversation.parent;
    if (parent && parent !== conv && conversationOf(parent)) {
      const pev = open(parent);
      if (pev.firstTime(`spawn:${conv}`)) {
        pev.toolCall(`spawn:${conv}`, SPAWN);
        pev.toolResult(`spawn:${conv}`, false);
      }
    }
  }
  state.since = newest;
}

/** The model of a conversation's last `token_usage[]` entry: for one whose exchanges are gone. */
function lastModel(list: unknown): string {
  const entries = Array.isArray(list) ? list : [];
  return str(obj(entries[entries.length - 1])?.model_id) || 'unknown';
}

/**
 * The growth of a conversation's cost, and of its tokens by type where `total_charged_usage` has
 * them, counted for the model of its latest exchange (Warp records neither per model). The cost is
 * Warp's own (`total_provider_cost_in_cents`); a conversation without one and without tokens by
 * type has no usage at all.
 */
function countUsage(ev: SessionEvents, marks: Marks, conv: string, model: string, usage: Json, ts: number): void {
  const charged = obj(usage.total_charged_usage);
  const raw = [...(charged ? CHARGED.map((k) => charged[k]) : []), usage.total_provider_cost_in_cents];
  const tokens = charged ? tokenCounts(raw.slice(0, CHARGED.length)) : [0, 0, 0, 0];
  const cents = dollars(usage.total_provider_cost_in_cents);
  if (!tokens || Number.isNaN(cents)) return skipTotals(ev, `usage:${conv}`, raw);
  if (!charged && cents === undefined) return;
  const [input = 0, output = 0, cacheRead = 0, cacheWrite = 0] = tokens;
  const totals: Usage = { input, output, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning: 0 };
  countGrowth(
    ev,
    marks,
    `usage:${conv}`,
    model,
    totals,
    cents === undefined ? undefined : cents / 100,
    ts,
    charged ? NO_REASONING : NO_TOKENS,
  );
}

/**
 * The growth of a conversation's tool counters (one call each, none known to fail; counters of
 * tools not known here as `other`) and of its edited lines.
 */
function countTools(ev: SessionEvents, marks: Marks, conv: string, tools: Json | undefined): void {
  if (!tools) return;
  const stats = (tool: string) => obj(tools[`${tool}_stats`]);
  const others = Object.keys(tools).filter(
    (k) => k.endsWith('_stats') && !TOOLS.includes(k.slice(0, -'_stats'.length)),
  );
  const raw = [...TOOLS.map((t) => stats(t)?.count), ...others.map((k) => obj(tools[k])?.count)];
  const counts = tokenCounts(raw);
  if (!counts) skipTotals(ev, `tools:${conv}`, raw);
  else {
    const key = `tools:${conv}`;
    const before = marks[key] ?? [];
    const known = counts.slice(0, TOOLS.length);
    const other = counts.slice(TOOLS.length).reduce((a, b) => a + b, 0);
    growth(marks, key, [...known, other]).forEach((delta, i) => {
      const tool = TOOLS[i] ?? 'other';
      for (let n = (before[i] ?? 0) + 1; n <= (before[i] ?? 0) + delta; n++) {
        const id = `${conv}:${tool}:${n}`;
        if (!ev.firstTime(`tool:${id}`)) continue;
        ev.toolCall(id, callOf(tool));
        ev.toolResult(id, false);
      }
    });
  }
  const diff = stats('apply_file_diff');
  const lines = tokenCounts([diff?.lines_added, diff?.lines_removed]);
  if (!lines) return skipTotals(ev, `lines:${conv}`, [diff?.lines_added, diff?.lines_removed]);
  const seen = !ev.firstTime(`lines:${conv}:${lines.join(',')}`);
  const [added = 0, removed = 0] = growth(marks, `lines:${conv}`, lines);
  if (!seen && (added || removed)) ev.lines(added, removed);
}
