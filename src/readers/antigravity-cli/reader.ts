// Google Antigravity CLI (`agy`, closed source): one SQLite database per conversation,
// `conversations/<id>.db`, whose steps and model generations are protobuf records (steps.ts), and
// `history.jsonl`, one line per prompt typed (`{display, timestamp, workspace, conversationId}`).
// The database is rewritten in place (a resume marks running steps canceled, a rewind deletes
// steps and numbers new ones again): it is read whole when it changed, and what it reports is
// deduplicated by step and generation.
//
// Tokens come from the generations (`gen_metadata`) only, never also from the usage the planner
// steps repeat (the same generation twice). A generation does not give its thinking part: that
// is taken from the usage of the steps it produced (the part of output, not more tokens).
// Antigravity records no cost: the list price applies. A database of an unknown version or
// schema, or a step whose payload disagrees with its table row, is skipped as `unknown_shape`:
// the format changed, and that shows, rather than zeros.

import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SessionFile, StoreReader } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, num, str } from '../fields.js';
import { parseJson, readLines } from '../lines.js';
import { readDatabase, storeChanged } from '../sqlite.js';
import type { TodoState, TurnOutcome, Usage } from '../../session/types.js';
import { classifyTool } from './tools.js';
import { inFlight, readConversation, STEP_STATUS, STEP_TYPE, type Conversation, type Step } from './steps.js';
import { antigravityCli as where } from './where.js';

export interface AntigravityState {
  /** The database's signature at the last read (see storeChanged). */
  sig?: string;
  /** The newest prompt in history.jsonl for this conversation at the last read (ms). */
  prompted?: number;
  /**
   * A turn this reader started is not reported ended yet. Kept here, not left to the store: the
   * database is read whole on every change, and a turn's end is reported once; and a prompt in
   * history.jsonl before its step starts a turn only when none runs (one typed while the agent
   * works waits for its step: the running turn may still complete).
   */
  turnOpen: boolean;
  /** The open turn was started by a prompt in history.jsonl whose step is not in the database yet. */
  promptPending?: true;
}

function listFiles(root: string): SessionFile[] {
  return listDir(join(root, 'conversations'))
    .filter((e) => e.isFile && e.name.endsWith('.db'))
    .map((e) => ({ path: e.path, sessionId: basename(e.name, '.db') }));
}

interface Prompted {
  at: number;
  workspace?: string;
}

// history.jsonl per root, read on from where it was last read: the newest prompt and the
// workspace of each conversation. Kept in memory (a restart reads the file again: a line a prompt).
const histories = new Map<string, { offset: number; byConversation: Map<string, Prompted> }>();

function history(root: string): Map<string, Prompted> {
  const path = join(root, 'history.jsonl');
  let h = histories.get(path);
  if (!h) histories.set(path, (h = { offset: 0, byConversation: new Map() }));
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (size === undefined) return h.byConversation;
  // A history rewritten shorter is read again from its start.
  if (size < h.offset) h = { offset: 0, byConversation: new Map() };
  if (size === h.offset) return h.byConversation;
  const byConversation = h.byConversation;
  h.offset = readLines(path, h.offset, (line) => {
    const rec = parseJson(line);
    const id = str(rec?.conversationId);
    const at = num(rec?.timestamp);
    if (!rec || !id || !at) return;
    const prev = byConversation.get(id);
    if (!prev || at >= prev.at) byConversation.set(id, { at, workspace: str(rec.workspace) ?? prev?.workspace });
  }).offset;
  histories.set(path, h);
  return byConversation;
}

const NOT_A_DATABASE = /^SQLITE_(NOTADB|CORRUPT)/;

function readStore(
  file: SessionFile,
  state: AntigravityState,
  eventsOf: (sessionId: string) => SessionEvents,
): boolean {
  const id = file.sessionId;
  const root = dirname(dirname(file.path));
  const prompted = history(root).get(id);
  const { changed, signature } = storeChanged(file.path, state.sig);
  if (!changed && prompted?.at === state.prompted) return false;
  let conversation: Conversation | undefined | 'damaged';
  try {
    conversation = readDatabase(file.path, readConversation);
  } catch (e) {
    // A file that is no database, or a damaged one, costs only its own conversation.
    if (!NOT_A_DATABASE.test(String((e as { code?: unknown }).code))) throw e;
    conversation = 'damaged';
  }
  state.sig = signature;
  state.prompted = prompted?.at;
  const ev = eventsOf(id);
  if (conversation === 'damaged') ev.skipped('parse_error');
  else if (!conversation) ev.skipped('unknown_shape');
  else report(id, conversation, prompted?.workspace ?? lastWorkspace(root, id), prompted, state, ev);
  const plan = taskList(join(root, 'brain', id, 'task.md'));
  if (plan) ev.todos(plan);
  return true;
}

const CHECKBOX = /^\s*[-*] \[([ xX/])\]/gm;
const ITEM_STATES: Record<string, TodoState> = { ' ': 'pending', '/': 'in_progress', x: 'completed', X: 'completed' };

/** The items of the conversation's `task.md` checklist by state (`[ ]`, `[/]` in progress, `[x]`), if it has one. */
function taskList(path: string): Partial<Record<TodoState, number>> | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  const out: Partial<Record<TodoState, number>> = {};
  for (const m of text.matchAll(CHECKBOX)) {
    const st = ITEM_STATES[m[1]!]!;
    out[st] = (out[st] ?? 0) + 1;
  }
  return out;
}

/** The folder a conversation was last opened in, from `cache/last_conversations.json` (`{"<cwd>": "<id>"}`). */
function lastWorkspace(root: string, id: string): string | undefined {
  const last = jsonObject(readText(join(root, 'cache', 'last_conversations.json')) ?? '');
  return Object.entries(last ?? {}).find(([, v]) => v === id)?.[0];
}

function report(
  id: string,
  c: Conversation,
  cwd: string | undefined,
  prompted: Prompted | undefined,
  state: AntigravityState,
  ev: SessionEvents,
): void {
  for (const reason of c.skipped) ev.skipped(reason);
  const lastGen = c.generations.at(-1);
  const model = lastGen?.model ?? c.configuredModel;
  ev.meta({ cwd, model });
  const key = (s: Step) => `${id}:${s.trajectory}:${s.idx}:${s.createdAt}`;
  const byIdx = new Map(c.steps.map((s) => [s.idx, s]));

  // Calls by id with the state of the step that executes them (the latest).
  const execution = new Map<string, Step>();
  for (const s of c.steps) if (s.executes) execution.set(s.executes, s);
  for (const s of c.steps) {
    ev.activity(s.createdAt);
    if (s.type === STEP_TYPE.userInput && ev.firstTime(`prompt:${key(s)}`)) {
      ev.prompt(s.createdAt);
      // The prompt of the turn its history line started; any other starts a turn.
      if (state.promptPending) {
        delete state.promptPending;
      } else {
        if (state.turnOpen) ev.turnEnded('interrupted', s.createdAt);
        state.turnOpen = true;
        ev.turnStarted(s.createdAt);
      }
    }
    for (const call of s.calls) {
      if (!ev.firstTime(`call:${key(s)}:${call.id}`)) continue;
      const waiting = execution.get(call.id)?.status === STEP_STATUS.waiting;
      ev.toolCall(call.id, { ...classifyTool(call.name), ...(waiting ? { waits: 'approval' as const } : {}) });
    }
    if (s.executes && !inFlight(s.status) && ev.firstTime(`result:${key(s)}`))
      ev.toolResult(s.executes, s.status === STEP_STATUS.error);
  }

  for (const g of c.generations) {
    // A generation counts once its step is saved, keyed by that step's time: a rewind numbers
    // generations again.
    const first = byIdx.get(g.stepIndices[0] ?? -1);
    if ((g.stepIndices.length > 0 && !first) || !ev.firstTime(`gen:${id}:${g.idx}:${first?.createdAt ?? ''}`)) continue;
    const thinking = g.usage.thinking || g.stepIndices.reduce((n, i) => n + (byIdx.get(i)?.usage?.thinking ?? 0), 0);
    const u: Usage = {
      input: g.usage.input,
      output: g.usage.output,
      cacheRead: g.usage.cacheRead,
      cacheWrite: g.usage.cacheWrite,
      cacheWrite1h: 0,
      reasoning: Math.min(thinking, g.usage.output),
    };
    const prompt = u.input + u.cacheRead + u.cacheWrite;
    ev.usage(g.model ?? model ?? 'unknown', u, prompt, first?.createdAt ?? c.steps.at(-1)?.createdAt ?? 0);
  }
  if (lastGen)
    ev.context(
      lastGen.model ?? model ?? 'unknown',
      lastGen.usage.input + lastGen.usage.cacheRead + lastGen.usage.cacheWrite,
    );

  const last = c.steps.at(-1);
  if (last && !c.steps.some((s) => inFlight(s.status)) && state.turnOpen && !state.promptPending) {
    state.turnOpen = false;
    ev.turnEnded(outcomeOf(last), last.createdAt);
  }
  // A prompt newer than every step: the CLI took it, and the turn is underway before its step is saved.
  if (prompted && prompted.at > (last?.createdAt ?? 0) && !state.promptPending && !state.turnOpen) {
    ev.activity(prompted.at);
    state.turnOpen = true;
    state.promptPending = true;
    ev.turnStarted(prompted.at);
  }
}

function outcomeOf(last: Step): TurnOutcome {
  if (last.type === STEP_TYPE.errorMessage || last.status === STEP_STATUS.error) return 'failed';
  return last.status === STEP_STATUS.done ? 'completed' : 'interrupted';
}

export const antigravityCli: StoreReader<AntigravityState> = {
  ...where,
  kind: 'store',
  // The usage's cache-write field is deprecated and left empty (Gemini's caching writes nothing billed).
  unrecorded: ['cache_write'],
  listFiles,
  initialState: () => ({ turnOpen: false }),
  readStore,
};
