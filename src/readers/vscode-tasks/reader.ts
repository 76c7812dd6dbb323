// The VS Code extensions of the Cline family (Cline, and its forks Roo Code and Kilo Code before
// Kilo 7 moved to kilo.db) keep each task in `<user dir>/User/globalStorage/<extension id>/tasks/
// <task id>/` (paths.ts): `ui_messages.json` (the transcript the extension shows, `ClineMessage[]`,
// rewritten whole on every change), `api_conversation_history.json` (what was sent to the model),
// Roo and Kilo's `history_item.json` (the task's entry: its folder, parent and status), and
// Cline's `<extension id>/state/taskHistory.json` (every task's entry: its folder).
//
// The transcript is the document read; its messages have no id but their `ts`, unique in a task:
// every record counts once by it, whichever rewrite first holds it complete. A request is a
// `say:"api_req_started"` whose text is JSON (`ClineApiReqInfo`): a placeholder without counts
// until its stream ended. Its `tokensIn` is the uncached remainder in Cline (but for providers
// passing OpenAI's `prompt_tokens`, cache included) and the whole prompt in Roo Code since 3.29.5
// and Kilo Code since 4.119.0 (`tokensIn: costResult.totalInputTokens`); older Roo and Kilo wrote
// the remainder, which a `tokensIn` below the cache counts gives away. Reasoning is inside
// `tokensOut`. The model is on recent Cline's messages (`modelInfo`), on older Cline's in the task's
// `task_metadata.json` (`model_usage`: each model switched to, when, and its provider) or its task
// history entry; Roo and Kilo name it only in the environment details they send
// (`<model>…</model>`), read from the end of the conversation. Cline records its subagents' usage
// apart (`say:"subagent_usage"`, counted like a request: Cline's own totals add it), a retry's
// requests it deleted summed in their place (`deleted_api_reqs`: only what was not counted before), and a
// compaction only as a change of the range of the conversation deleted
// (`conversationHistoryDeletedRange` on the messages after it); Roo and Kilo write one message.

import { join } from 'node:path';
import type { DocumentReader, DocumentSteps, LineReader, Reader, SessionFile, StoreReader } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { Usage, UsagePart } from '../../session/types.js';
import { NO_REASONING, TOKEN_TYPES } from '../../session/vocabulary.js';
import { documentValue } from '../document.js';
import { jsonObject, jsonValue, numberOf, obj, str, type Json } from '../fields.js';
import { fileStat, listDir, ParsedFiles, readTail, readText } from '../../files/dir.js';
import { extensionDir, isTaskRoot } from './paths.js';
import { extensionTasksWhere, withExtensionTaskRoots, type TaskFamily } from './where.js';
import { callOf } from './tools.js';

export interface TaskState {
  /** The task's folder, once found (Cline's task history is read until it is). */
  cwd?: string;
  /** The model of Cline's task history entry, read with its folder. */
  model?: string;
  /**
   * The counts of each request counted, by its `ts`, while the transcript holds it: a retry
   * deletes the requests after a message and writes their sum in their place
   * (`deleted_api_reqs`), of which only what was not counted before counts.
   */
  counted?: Record<string, Counts>;
}

/** A request's counts as its message has them: `tokensIn` in the harness's sense; `cost` where recorded. */
interface Counts {
  tokensIn: number;
  tokensOut: number;
  cacheReads: number;
  cacheWrites: number;
  cost?: number;
}

const TRANSCRIPT = 'ui_messages.json';
// The end of the conversation searched for the model Roo and Kilo last named.
const MODEL_TAIL = 256 << 10;
// Cline's providers whose `tokensIn` is OpenAI's `prompt_tokens`, cache included.
const PROMPT_WITH_CACHE = new Set([
  'openai',
  'openai-native',
  'litellm',
  'doubao',
  'fireworks',
  'hicap',
  'lmstudio',
  'qwen',
  'xai',
  'zai',
]);
// Messages after a tool call that say it failed.
const TOOL_ERRORS = new Set([
  'diff_error',
  'clineignore_error',
  'rooignore_error',
  'error',
  'command_permission_denied',
]);
// A condense call has a cost and no token counts: it gives no token series.
const NO_TOKENS: readonly UsagePart[] = [...TOKEN_TYPES, 'reasoning'];
const ZERO: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };

/** Every task's transcript under an extension's `tasks` folder. */
export function taskFiles(root: string): SessionFile[] {
  return listDir(root).flatMap((dir) => {
    const path = join(dir.path, TRANSCRIPT);
    const stat = dir.isDirectory ? fileStat(path) : undefined;
    return stat ? [{ path, sessionId: dir.name, document: true as const, stat }] : [];
  });
}

/** Whether a file is a task's transcript (of a harness that reads other files too). */
export function isTaskFile(file: SessionFile): boolean {
  return file.document === true && file.path.endsWith(`/${TRANSCRIPT}`);
}

/** A harness whose only files are its extension's tasks (Roo Code). */
export function extensionTasks(family: TaskFamily): DocumentReader<TaskState> {
  return {
    ...extensionTasksWhere(family),
    kind: 'documents',
    unrecorded: ['reasoning'],
    listFiles: taskFiles,
    initialState: () => ({}),
    readDocument: (doc, state, file, ev) => readTranscript(family, doc, state, file, ev),
  };
}

/**
 * A harness's reader that reads its VS Code extension's tasks too (Cline's CLI and its extension,
 * Kilo's database and its extension before Kilo 7): one harness is one reader. A root that is a
 * `tasks` folder is the extension's, any other the reader's own; a task's transcript is read here,
 * every other file by the reader. A task's state is small and of one shape: it migrates with the
 * reader's (`stateVersion`) as a state the reader cannot read, rebuilt from the transcript.
 */
export function withExtensionTasks<S>(reader: LineReader<S>, family: TaskFamily): LineReader<S | TaskState>;
export function withExtensionTasks<S>(reader: DocumentReader<S>, family: TaskFamily): DocumentReader<S | TaskState>;
export function withExtensionTasks<S>(reader: StoreReader<S>, family: TaskFamily): StoreReader<S | TaskState>;
export function withExtensionTasks<S>(reader: Reader<S>, family: TaskFamily): Reader<S | TaskState> {
  return {
    ...(reader as Reader<S | TaskState>),
    ...withExtensionTaskRoots(reader, family),
    listFiles: (root) => (isTaskRoot(root) ? taskFiles(root) : reader.listFiles(root)),
    initialState: (file) => (isTaskFile(file) ? {} : reader.initialState(file)),
    registry: (root) => (isTaskRoot(root) ? [] : (reader.registry?.(root) ?? [])),
    readDocument: (doc, state, file, ev) =>
      isTaskFile(file)
        ? readTranscript(family, doc, state as TaskState, file, ev)
        : reader.readDocument?.(doc, state as S, file, ev),
  };
}

/**
 * Cline's task history, every task's entry by its id: read once per change of it, not once per
 * task read (it holds every task: read whole for each, a first read of N tasks took N² time).
 */
export const taskHistories = new ParsedFiles((text) => {
  const history = jsonValue(text ?? '');
  // Only what is read of an entry is kept (not its task's text).
  const byId = new Map<string, { cwd?: string; model?: string }>();
  for (const raw of Array.isArray(history) ? history : []) {
    const h = obj(raw);
    const id = str(h?.id);
    if (id !== undefined && !byId.has(id))
      byId.set(id, { cwd: str(h?.cwdOnTaskInitialization), model: str(h?.modelId) });
  }
  return byId;
});

/** A model the task switched to (Cline's `task_metadata.json`). */
interface ModelUse {
  ts: number;
  model: string;
  provider?: string;
}

/** What a task's folder says beside its transcript. */
interface TaskMeta {
  cwd?: string;
  /** The task was delegated by another (its first message is the goal it was given, not a prompt). */
  child: boolean;
  model?: string;
  /** Cline: the models switched to, by time, for the requests no message names a model for. */
  uses: ModelUse[];
  /** Cline: a compaction shows as a change of the messages' deleted range. */
  deletedRange: boolean;
}

function taskMeta(family: TaskFamily, state: TaskState, file: SessionFile): TaskMeta {
  const dir = join(file.path, '..');
  if (family.wholePrompt) {
    const item = jsonObject(readText(join(dir, 'history_item.json')) ?? '');
    const tail = readTail(join(dir, 'api_conversation_history.json'), MODEL_TAIL)?.toString('utf8') ?? '';
    const models = [...tail.matchAll(/<model>([^<]{1,200})<\/model>/g)];
    return {
      cwd: str(item?.workspace),
      child: str(item?.parentTaskId) !== undefined,
      model: models.at(-1)?.[1],
      uses: [],
      deletedRange: false,
    };
  }
  if (!state.cwd) {
    const entry = taskHistories.get(join(extensionDir(file.path), 'state', 'taskHistory.json')).get(file.sessionId);
    if (entry?.cwd) state.cwd = entry.cwd;
    if (entry?.model) state.model = entry.model;
  }
  const metadata = jsonObject(readText(join(dir, 'task_metadata.json')) ?? '');
  const uses = (Array.isArray(metadata?.model_usage) ? metadata.model_usage : [])
    .flatMap((raw): ModelUse[] => {
      const u = obj(raw);
      const model = str(u?.model_id);
      return typeof u?.ts === 'number' && model ? [{ ts: u.ts, model, provider: str(u.model_provider_id) }] : [];
    })
    .sort((a, b) => a.ts - b.ts);
  return { cwd: state.cwd, child: false, model: state.model, uses, deletedRange: true };
}

/** The model Cline last switched to before `ts`, by its task metadata. */
function modelUsedAt(uses: readonly ModelUse[], ts: number): ModelUse | undefined {
  let found: ModelUse | undefined;
  for (const u of uses) if (u.ts <= ts) found = u;
  return found;
}

function* readTranscript(
  family: TaskFamily,
  doc: Buffer,
  state: TaskState,
  file: SessionFile,
  ev: SessionEvents,
): DocumentSteps {
  const messages = documentValue(doc, ev);
  if (messages === undefined) return;
  // A task's transcript starts with its task: none is no transcript.
  if (!Array.isArray(messages) || messages.length === 0) return ev.skipped('unknown_shape');
  const meta = taskMeta(family, state, file);
  // A task runs in the editor's extension host: its status is its transcript's alone.
  ev.meta({ hosted: true });
  if (meta.cwd) ev.meta({ cwd: meta.cwd });
  if (meta.model) ev.meta({ model: meta.model });
  const task = file.sessionId;
  const list: Json[] = [];
  for (const raw of messages) {
    const m = obj(raw);
    if (!m) ev.skipped('unknown_shape');
    // A partial message is still being streamed: it is written again whole.
    else if (m.partial !== true) list.push(m);
  }
  // The model a message named last; where none has, the one task_metadata.json had at the time.
  let named: ModelUse | undefined;
  let model = meta.model;
  let provider: string | undefined;
  let range: string | undefined;
  const present = new Set(list.map((m) => m.ts));
  const read = (m: Json, i: number): void => {
    const ts = m.ts;
    if (typeof ts !== 'number') return ev.skipped('unknown_shape');
    ev.activity(ts);
    const info = obj(m.modelInfo);
    const infoModel = str(info?.modelId);
    if (infoModel) named = { ts, model: infoModel, provider: str(info?.providerId) };
    const use = named ?? modelUsedAt(meta.uses, ts);
    if (use && use.model !== model) ev.meta({ model: use.model });
    if (use) ({ model, provider } = use);
    const key = `${task}:${ts}`;
    // Cline: the range of the conversation deleted, on each message after a truncation or condense.
    const deleted =
      meta.deletedRange && Array.isArray(m.conversationHistoryDeletedRange)
        ? JSON.stringify(m.conversationHistoryDeletedRange)
        : undefined;
    if (deleted !== undefined && deleted !== range) {
      range = deleted;
      if (ev.firstTime(`compaction:${key}`)) ev.compaction();
    }
    const kind = m.type === 'ask' ? str(m.ask) : m.type === 'say' ? str(m.say) : undefined;
    // The task's first message is its prompt; a child task's is the goal its parent gave it.
    if (i === 0 && (kind === 'task' || kind === 'text')) {
      if (ev.firstTime(`start:${key}`)) {
        if (!meta.child) ev.prompt(ts);
        ev.turnStarted(ts);
      }
      return;
    }
    switch (kind) {
      case 'user_feedback':
        // The person's reply to a completion starts a turn; to a rejected tool, goes on with it.
        if (ev.firstTime(`prompt:${key}`)) {
          ev.prompt(ts);
          ev.turnStarted(ts);
        }
        return;
      case 'api_req_started':
        return request(family, m, { key, ts, model, provider, state, present }, ev);
      // The subagents' requests, summed: not the task's context.
      case 'subagent_usage':
        return request(family, m, { key, ts, model, provider, state, present, apart: true }, ev);
      case 'deleted_api_reqs':
        return request(family, m, { key, ts, model, provider, state, present, apart: true, deleted: true }, ev);
      case 'condense_context': {
        if (!ev.firstTime(`compaction:${key}`)) return;
        ev.compaction();
        const cost = obj(m.contextCondense)?.cost;
        if (typeof cost === 'number' && cost > 0) ev.usage(model ?? 'unknown', ZERO, 0, ts, cost, NO_TOKENS);
        return;
      }
      case 'sliding_window_truncation':
        if (ev.firstTime(`compaction:${key}`)) ev.compaction();
        return;
      // The result given ends the turn (`say`), whether or not the person is asked to accept it
      // after (`ask`, which the turn's end already counted): Roo's subtask says its result and
      // returns to its parent task, with no ask (its AttemptCompletionTool delegates first).
      case 'completion_result':
        if (ev.firstTime(`end:${key}`)) ev.turnEnded('completed', ts);
        return;
      case 'api_req_failed':
      case 'mistake_limit_reached':
        if (m.type === 'ask' && ev.firstTime(`end:${key}`)) ev.turnEnded('failed', ts);
        return;
    }
    const call = callOf(kind, str(m.text));
    if (!call) return;
    // An `ask` waits for the person's approval until a message follows it (a question or a
    // delegation waits on its own).
    const next = list[i + 1];
    if (ev.firstTime(`call:${key}`))
      ev.toolCall(key, m.type === 'ask' && !call.waits ? { ...call, waits: 'approval' } : call);
    if (!next) return;
    const failed = TOOL_ERRORS.has((next.type === 'say' ? str(next.say) : undefined) ?? '');
    if (ev.firstTime(`result:${key}`)) ev.toolResult(key, failed, call);
  };
  for (let i = 0; i < list.length; i++) {
    yield;
    read(list[i]!, i);
  }
}

/** Where a request's message is, and what it is. */
interface RequestAt {
  key: string;
  ts: number;
  model?: string;
  provider?: string;
  state: TaskState;
  /** The `ts` of every message the transcript holds now. */
  present: ReadonlySet<unknown>;
  /** Not the task's own request (its subagents', or a retry's sum): not its context. */
  apart?: true;
  /** The sum of the requests a retry deleted. */
  deleted?: true;
}

function request(family: TaskFamily, m: Json, at: RequestAt, ev: SessionEvents): void {
  const { key, ts, state } = at;
  const text = str(m.text);
  const parsed = text === undefined ? undefined : jsonValue(text);
  const info = obj(parsed);
  // A text that is no JSON (a count written `NaN`) is damage of the record, not another shape.
  if (!info) return ev.skipped(text !== undefined && parsed === undefined ? 'parse_error' : 'unknown_shape');
  const cancel = str(info.cancelReason);
  // A placeholder: the request is under way. A `tokensIn` that is there but no count is damage,
  // reported (NaN, which the store skips and counts), never taken for a placeholder.
  const counted = info.tokensIn !== undefined && info.tokensIn !== null;
  if (!counted && cancel === undefined) return;
  if (counted && ev.firstTime(`usage:${key}`)) {
    const counts: Counts = {
      tokensIn: numberOf(info.tokensIn),
      tokensOut: numberOf(info.tokensOut),
      cacheReads: numberOf(info.cacheReads),
      cacheWrites: numberOf(info.cacheWrites),
      ...(typeof info.cost === 'number' ? { cost: info.cost } : {}),
    };
    const own = at.deleted ? notCounted(counts, ts, state, at.present) : counts;
    (state.counted ??= {})[ts] = counts;
    const { tokensIn, cacheReads: cacheRead, cacheWrites: cacheWrite } = own;
    // The whole prompt where it holds the cache (a remainder below the cache counts never does).
    const whole =
      (family.wholePrompt || PROMPT_WITH_CACHE.has(at.provider ?? '')) && tokensIn >= cacheRead + cacheWrite;
    const input = whole ? tokensIn - cacheRead - cacheWrite : tokensIn;
    const usage: Usage = { input, output: own.tokensOut, cacheRead, cacheWrite, cacheWrite1h: 0, reasoning: 0 };
    const prompt = input + cacheRead + cacheWrite;
    // No extension of the family records reasoning (inside `tokensOut`): said per record too, for
    // Kilo, whose reader's CLI database records it.
    ev.usage(at.model ?? 'unknown', usage, prompt, ts, own.cost, NO_REASONING);
    if (!at.apart && prompt > 0) ev.context(at.model ?? 'unknown', prompt);
  }
  // A request the person cancelled ends the turn (a failed one ends it with `api_req_failed`).
  if (cancel === 'user_cancelled' && ev.firstTime(`end:${key}`)) ev.turnEnded('interrupted', ts);
}

/**
 * What a retry's sum of deleted requests holds beyond the requests counted before it deleted
 * them (counted, earlier, and gone from the transcript now: they are in the sum), which leave
 * the state: the sum stands for them from now on.
 */
function notCounted(sum: Counts, ts: number, state: TaskState, present: ReadonlySet<unknown>): Counts {
  const left = { ...sum };
  for (const [at, c] of Object.entries(state.counted ?? {})) {
    if (Number(at) >= ts || present.has(Number(at))) continue;
    left.tokensIn -= c.tokensIn;
    left.tokensOut -= c.tokensOut;
    left.cacheReads -= c.cacheReads;
    left.cacheWrites -= c.cacheWrites;
    if (left.cost !== undefined) left.cost -= c.cost ?? 0;
    delete state.counted![at];
  }
  const atLeast0 = (n: number) => Math.max(0, n);
  return {
    tokensIn: atLeast0(left.tokensIn),
    tokensOut: atLeast0(left.tokensOut),
    cacheReads: atLeast0(left.cacheReads),
    cacheWrites: atLeast0(left.cacheWrites),
    ...(left.cost !== undefined ? { cost: atLeast0(left.cost) } : {}),
  };
}
