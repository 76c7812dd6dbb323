// Reading Cursor's global `state.vscdb` incrementally (cursor-ide §2-§8). A chat is a
// `composerData:<id>` row (its status, model, context meter and the ordered list of its messages'
// ids, `fullConversationHeadersOnly`) and one `bubbleId:<id>:<bubble>` row per message (a prompt,
// `type` 1; an answer, a thinking block or a tool call, `type` 2). Only the bubbles the list names
// belong to the chat, in its order (an edited prompt leaves its old bubbles behind).
//
// Cursor rewrites rows in place, and a table `UNIQUE ON CONFLICT REPLACE` gives a rewritten row a
// new rowid above the rest: the rows above the highest rowid of the last read are what changed,
// and only their chats are read again, each from the start of its last turn, loading only the
// bubbles changed since (or listed since). A rowid that went down (a VACUUM, a database created
// anew) or a row at the last read's top that is another now (rows deleted at the top, their
// rowids taken again) makes every chat be looked at, by its `lastUpdatedAt`. Everything counted is
// keyed with `firstTime`: a chat read again counts nothing twice.
//
// Current builds write `tokenCount` as {0,0} and no cost (cursor-ide §7): no token or cost series.
// The context meter (`contextTokensUsed`) is reported as the context in use.

import type { SessionEvents } from '../../session/events.js';
import type { TurnOutcome } from '../../session/types.js';
import { num, obj, str, time, type Json } from '../fields.js';
import type { Db } from '../sqlite.js';
import {
  hasTable,
  keyAt,
  keysAfter,
  keysWithPrefix,
  keyValue,
  parsedValue,
  prefixed,
  topRow,
  valueObject,
} from '../vscdb.js';
import { classifyTool } from './tools.js';
import { identifierFolder, type Workspaces } from './workspaces.js';

/**
 * What was read of a chat: its `lastUpdatedAt`, the header its last turn starts at, the headers
 * read, and whether its folder was found (it is looked for until it is).
 */
type ComposerMark = [at: number, turn: number, seen: number, folder: 0 | 1];

export interface CursorState {
  sig?: string;
  /** The highest rowid of `cursorDiskKV` at the last read (0: never read), and its key. */
  mark: number;
  markKey?: string;
  composers: Record<string, ComposerMark>;
}

const COMPOSER = 'composerData:';
const BUBBLE = 'bubbleId:';

/** What is used of a bubble. */
interface Bubble {
  type: number;
  at?: number;
  model?: string;
  error: boolean;
  tool?: { id: string; name: string; status?: string; waits?: 'approval' | 'question' };
  context?: { used: number; limit?: number };
}

/** A header of the chat's list: its bubble's id and type. */
interface Header {
  id: string;
  type: number;
}

/** A composer's id and a bubble's, from a `bubbleId:<composer>:<bubble>` key (a composer id may hold a colon or a newline). */
function bubbleKey(key: string): { composer: string; bubble: string } | undefined {
  const at = key.lastIndexOf(':');
  return at > BUBBLE.length ? { composer: key.slice(BUBBLE.length, at), bubble: key.slice(at + 1) } : undefined;
}

/** A real model name: Cursor's `default` is Auto, whose model is not recorded. */
function model(v: unknown): string | undefined {
  const m = str(v);
  return m && m !== 'default' ? m : undefined;
}

function bubbleOf(b: Json): Bubble {
  const tool = obj(b.toolFormerData);
  const name = str(tool?.name);
  const status = str(tool?.status);
  const extra = obj(tool?.additionalData);
  // Waiting on the user: a call still loading that asks (cursor-ide §6.3); the decision, once
  // taken, is written as `userDecision`.
  const pending =
    status === 'loading' &&
    tool?.userDecision === undefined &&
    (extra?.status === 'pending' || obj(extra?.reviewData)?.status === 'Requested');
  const meter = obj(b.contextWindowStatusAtCreation);
  return {
    type: typeof b.type === 'number' ? b.type : 0,
    at: time(b.createdAt) ?? (typeof b.createdAt === 'number' && b.createdAt > 0 ? b.createdAt : undefined),
    model: model(obj(b.modelInfo)?.modelName),
    error: obj(b.errorDetails) !== undefined,
    tool: name
      ? {
          id: str(tool?.toolCallId) || str(b.bubbleId) || name,
          name,
          status,
          waits: pending ? (name === 'ask_question' ? 'question' : 'approval') : undefined,
        }
      : undefined,
    context: num(meter?.tokensUsed)
      ? { used: num(meter?.tokensUsed), limit: num(meter?.tokenLimit) || undefined }
      : undefined,
  };
}

function headersOf(data: Json): Header[] {
  const list = Array.isArray(data.fullConversationHeadersOnly)
    ? data.fullConversationHeadersOnly
    : Array.isArray(data.conversation)
      ? data.conversation
      : [];
  return list.flatMap((h) => {
    const id = str(obj(h)?.bubbleId);
    return id ? [{ id, type: typeof obj(h)!.type === 'number' ? (obj(h)!.type as number) : 0 }] : [];
  });
}

/** A chat's header row in the `composerHeaders` table (3.x): whether it is a subagent's or a draft, its workspace. */
interface HeaderRow {
  workspaceId?: string;
  subagent: boolean;
  draft: boolean;
  identifier?: unknown;
}

type HeaderRows = (id: string) => HeaderRow | undefined;

function headerRows(db: Db): HeaderRows {
  if (!hasTable(db, 'composerHeaders')) return () => undefined;
  const cols = new Set(
    (db.prepare('SELECT name FROM pragma_table_info(?)').all('composerHeaders') as { name: string }[]).map(
      (c) => c.name,
    ),
  );
  const pick = (c: string) => (cols.has(c) ? c : `NULL AS ${c}`);
  const byId = db.prepare(
    `SELECT ${['workspaceId', 'isSubagent', 'value'].map(pick).join(', ')} FROM composerHeaders WHERE composerId = ?`,
  );
  return (id) => {
    const row = byId.get(id) as { workspaceId: unknown; isSubagent: unknown; value: unknown } | undefined;
    if (!row) return undefined;
    const value = valueObject(row.value);
    return {
      workspaceId: str(row.workspaceId),
      subagent: row.isSubagent === 1,
      draft: value?.isDraft === true,
      identifier: value?.workspaceIdentifier,
    };
  };
}

/** The global `composer.composerHeaders` list (3.0 on), read once a read if a chat needs it. */
function globalHeaders(db: Db): () => Map<string, Json> {
  let headers: Map<string, Json> | undefined;
  return () => {
    if (!headers) {
      headers = new Map();
      const all = keyValue(db, 'ItemTable', 'composer.composerHeaders')?.allComposers;
      for (const h of Array.isArray(all) ? all : []) {
        const id = str(obj(h)?.composerId);
        if (id) headers.set(id, obj(h)!);
      }
    }
    return headers;
  };
}

export function readCursor(
  db: Db,
  state: CursorState,
  eventsOf: (id: string) => SessionEvents,
  workspaces: Workspaces,
): void {
  workspaces.newRead();
  // A user dir whose editor never opened a chat has no chat table yet.
  if (!hasTable(db, 'cursorDiskKV')) return;
  const top = topRow(db, 'cursorDiskKV');
  const atMark = state.mark > 0 ? keyAt(db, 'cursorDiskKV', state.mark) : undefined;
  const full = state.mark === 0 || top.rowid < state.mark || (atMark !== undefined && atMark !== state.markKey);
  const rowsOf = headerRows(db);
  const global = globalHeaders(db);

  const folderOf = (id: string, data: Json, row: HeaderRow | undefined): string | undefined => {
    const identifier =
      obj(data.workspaceIdentifier) ?? obj(row?.identifier) ?? obj(global().get(id)?.workspaceIdentifier);
    const wsId = str(identifier?.id) ?? row?.workspaceId;
    return (
      identifierFolder(identifier) ??
      (wsId ? workspaces.folderOfWorkspace(wsId) : undefined) ??
      workspaces.folderOfComposer(id)
    );
  };

  // The chats to read, and for each the rowid above which its bubbles changed.
  const touched = new Map<string, number>();
  if (full) {
    for (const key of keysWithPrefix(db, 'cursorDiskKV', COMPOSER)) touched.set(key.slice(COMPOSER.length), 0);
  } else {
    for (const key of keysAfter(db, 'cursorDiskKV', state.mark)) {
      const id = key.startsWith(COMPOSER)
        ? key.slice(COMPOSER.length)
        : key.startsWith(BUBBLE)
          ? bubbleKey(key)?.composer
          : undefined;
      if (id !== undefined) touched.set(id, state.composers[id] ? state.mark : 0);
    }
  }

  const composerRow = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').pluck();
  for (const [id, after] of touched) {
    const raw = composerRow.get(COMPOSER + id);
    if (raw === undefined) {
      // A deleted chat (its bubbles may stay behind): nothing more of it is read.
      delete state.composers[id];
      continue;
    }
    const data = parsedValue(raw);
    const mark = state.composers[id];
    if (typeof data === 'string') {
      const ev = eventsOf(id);
      if (ev.firstTime(`bad:${id}:${num(mark?.[0])}`)) ev.skipped(data);
      continue;
    }
    const at = num(data.lastUpdatedAt) || num(data.createdAt);
    if (full && mark && mark[0] === at) continue;
    const headers = headersOf(data);
    const row = rowsOf(id);
    // A draft, or a chat never run (no message yet), is no session yet.
    if (row?.draft || headers.length === 0) continue;
    const cwd = mark?.[3] ? undefined : folderOf(id, data, row);
    const read = readComposer(db, id, data, headers, mark, full ? 0 : after, eventsOf(id), {
      subagent: row?.subagent === true || id.startsWith('task-'),
      cwd,
    });
    state.composers[id] = [...read, cwd || mark?.[3] ? 1 : 0];
  }
  // A chat deleted since is forgotten (also where a changed bubble of it is read after its row went).
  if (full) for (const id of Object.keys(state.composers)) if (!touched.has(id)) delete state.composers[id];
  state.mark = top.rowid;
  state.markKey = top.key;
}

function readComposer(
  db: Db,
  id: string,
  data: Json,
  headers: Header[],
  mark: ComposerMark | undefined,
  after: number,
  ev: SessionEvents,
  as: { subagent: boolean; cwd?: string },
): [number, number, number] {
  const at = num(data.lastUpdatedAt) || num(data.createdAt);
  const created = num(data.createdAt);
  // The model chosen for the chat, until an answer names the one that gave it.
  let current = model(obj(data.modelConfig)?.modelName);
  ev.meta({ cwd: as.cwd, hosted: true, ...(mark ? {} : { model: current }) });
  if (created) ev.activity(created);
  if (at) ev.activity(at);

  // The bubbles changed since the last read (all of them for a chat not read before); others on demand.
  const loaded = new Map<string, Bubble | undefined>();
  const inline = new Map<string, Json>();
  if (Array.isArray(data.conversation))
    for (const b of data.conversation) if (str(obj(b)?.bubbleId)) inline.set(str(obj(b)!.bubbleId)!, obj(b)!);
  for (const { key, value } of prefixed(db, 'cursorDiskKV', `${BUBBLE}${id}:`, mark ? after : 0)) {
    const b = parsedValue(value);
    const bubble = bubbleKey(key)?.bubble;
    if (bubble === undefined) continue;
    if (typeof b === 'string') {
      if (ev.firstTime(`bad:${key}:${at}`)) ev.skipped(b);
      loaded.set(bubble, undefined);
    } else loaded.set(bubble, bubbleOf(b));
  }
  const changed = new Set(loaded.keys());
  const lookup = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').pluck();
  const bubble = (bid: string): Bubble | undefined => {
    if (!loaded.has(bid)) {
      const b = inline.get(bid) ?? valueObject(lookup.get(`${BUBBLE}${id}:${bid}`));
      loaded.set(bid, b && bubbleOf(b));
    }
    return loaded.get(bid);
  };

  /** Ends the turn of headers [start, end): failed where its last bubble holds an error. */
  const endTurn = (start: number, end: number, outcome: TurnOutcome, fallbackAt: number) => {
    if (!ev.firstTime(`end:${id}:${headers[start]!.id}`)) return;
    const last = bubble(headers[end - 1]!.id);
    ev.turnEnded(last?.error ? 'failed' : outcome, last?.at ?? fallbackAt);
  };

  let turn = mark && mark[1] < headers.length ? mark[1] : 0;
  const seen = mark && mark[1] < headers.length ? mark[2] : 0;
  let read = headers.length;
  for (let j = turn; j < headers.length; j++) {
    const h = headers[j]!;
    if (h.type === 1 && j > turn) {
      // The next prompt ends the turn before it (a queued prompt too: Cursor writes no end between).
      endTurn(turn, j, 'completed', bubble(h.id)?.at ?? at);
      turn = j;
    }
    if (j < seen && !changed.has(h.id)) continue;
    const b = bubble(h.id);
    if (!b) {
      // Listed before it was written: read again next time.
      read = Math.min(read, j);
      continue;
    }
    if (b.at) ev.activity(b.at);
    if (h.type === 1) {
      if (!ev.firstTime(`prompt:${id}:${h.id}`)) continue;
      const ts = b.at ?? at;
      // A subagent's first message is the goal it was given, not a person's prompt.
      if (!as.subagent) ev.prompt(ts);
      ev.turnStarted(ts);
      continue;
    }
    if (b.model) {
      current = b.model;
      ev.meta({ model: b.model });
    }
    const tool = b.tool;
    if (!tool) continue;
    if (ev.firstTime(`call:${id}:${tool.id}`)) ev.toolCall(tool.id, classifyTool(tool.name));
    if (tool.status === 'loading') ev.toolWaits(tool.id, tool.waits ?? classifyTool(tool.name).waits);
    else if (tool.status !== undefined && ev.firstTime(`result:${id}:${tool.id}`))
      ev.toolResult(tool.id, tool.status === 'error');
  }

  // The chat's last turn ends when Cursor says the chat stopped generating.
  const status = str(data.status);
  const generating = Array.isArray(data.generatingBubbleIds) && data.generatingBubbleIds.length > 0;
  if (!generating && (status === 'completed' || status === 'aborted' || status === 'error')) {
    endTurn(
      turn,
      headers.length,
      status === 'aborted' ? 'interrupted' : status === 'error' ? 'failed' : 'completed',
      at,
    );
  }

  // Cursor's context meter: what the chat's context held at its last update.
  const meter = num(data.contextTokensUsed) || num(obj(data.promptTokenBreakdown)?.totalUsedTokens);
  const lastPrompt = [...headers].reverse().find((h) => h.type === 1);
  const fallback = meter ? undefined : lastPrompt && loaded.get(lastPrompt.id)?.context;
  if (meter) ev.context(current ?? 'unknown', meter, num(data.contextTokenLimit) || undefined);
  else if (fallback) ev.context(current ?? 'unknown', fallback.used, fallback.limit);
  // A bubble listed but not written yet is looked at again, from its turn's start.
  let from = Math.min(turn, read);
  while (from > 0 && headers[from]!.type !== 1) from--;
  return [at, from, read];
}
