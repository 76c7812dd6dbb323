// Amp (Sourcegraph): one JSON document per thread, `threads/T-<uuid>.json` under
// `$AMP_DATA_DIR` (a comma-separated list) or `${XDG_DATA_HOME:-~/.local/share}/amp`, rewritten
// whole as the thread grows. Amp's CLI has not written them since March 2026 (threads live on
// Amp's servers): what is read is the archive. Closed source; the shape is what several readers of
// real threads agree on (the harness format reference, wave 3 §1).
//
// Tokens are each answer's `usage`: Anthropic models' `inputTokens` leaves out cache reads and
// writes; GPT models record 0 there and the whole uncached prompt as `cacheCreationInputTokens`,
// which is input, not a cache write. `usageLedger` repeats the messages' usage in part: not read.
// Cost is in Amp's credits, not dollars (not read); reasoning is not recorded (inside output).
// Every record counts once by the thread and its `messageId`, whichever read first holds it.

import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DocumentReader, type DocumentSteps, type SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { TurnOutcome } from '../../session/types.js';
import { documentObject } from '../document.js';
import { numberOf, obj, str, time, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { classifyTool } from './tools.js';
import { amp as where } from './where.js';

const THREAD = /^T-[0-9a-f-]+\.json$/i;

function listFiles(root: string): SessionFile[] {
  return listDir(root)
    .filter((e) => e.isFile && THREAD.test(e.name))
    .map((e) => ({ path: e.path, sessionId: basename(e.name, '.json'), document: true }));
}

/** The thread's working directory: its first tree's `file://` URI, or `env.initial.cwd`. */
function cwdOf(d: Json): string | undefined {
  const initial = obj(obj(d.env)?.initial);
  const trees = Array.isArray(initial?.trees) ? initial.trees : [];
  const uri = str(obj(trees[0])?.uri);
  if (uri?.startsWith('file://')) {
    try {
      return fileURLToPath(uri);
    } catch {
      // not a local path
    }
  }
  return str(initial?.cwd);
}

// A tool run's final statuses (`error` alone failed: a call the person rejected or cancelled did not fail).
const FINISHED = new Set(['done', 'error', 'cancelled', 'rejected-by-user']);
const ENDS = new Map<string, TurnOutcome>([['cancelled', 'interrupted']]);

function* readDocument(doc: Buffer, _state: object, file: SessionFile, ev: SessionEvents): DocumentSteps {
  const d = documentObject(doc, ev);
  if (!d) return;
  if (!Array.isArray(d.messages)) return ev.skipped('unknown_shape');
  const thread = str(d.id) ?? file.sessionId;
  const created = time(d.created);
  if (created !== undefined) ev.activity(created);
  const cwd = cwdOf(d);
  if (cwd) ev.meta({ cwd });
  let last = created ?? 0;
  for (const raw of d.messages) {
    yield;
    const m = obj(raw);
    const id = m?.messageId;
    if (!m || typeof id !== 'number' || !Array.isArray(m.content)) {
      ev.skipped('unknown_shape');
      continue;
    }
    const blocks = m.content.map(obj).filter((b): b is Json => b !== undefined);
    const key = `${thread}:${id}`;
    if (m.role === 'user') last = userMessage(m, blocks, key, last, ev);
    else if (m.role === 'assistant') last = answer(m, blocks, key, last, ev);
  }
  // The end of the thread's last inference, when it ran on after its last record.
  const traces = Array.isArray(obj(d.meta)?.traces) ? (obj(d.meta)!.traces as unknown[]) : [];
  for (const t of traces) {
    const end = time(obj(t)?.endTime);
    if (end !== undefined) ev.activity(end);
  }
}

function userMessage(m: Json, blocks: Json[], key: string, last: number, ev: SessionEvents): number {
  const ts = time(obj(m.meta)?.sentAt) ?? last;
  ev.activity(ts);
  const results = blocks.filter((b) => b.type === 'tool_result');
  for (const b of results) {
    const callId = str(b.toolUseID);
    const run = obj(b.run);
    if (!callId || !FINISHED.has(str(run?.status) ?? '')) continue;
    if (ev.firstTime(`result:${callId}`)) ev.toolResult(callId, run!.status === 'error');
  }
  if (results.length === 0 && blocks.some((b) => b.type === 'text') && ev.firstTime(`prompt:${key}`)) {
    ev.prompt(ts);
    ev.turnStarted(ts);
  }
  return ts;
}

function answer(m: Json, blocks: Json[], key: string, last: number, ev: SessionEvents): number {
  const u = obj(m.usage);
  const ts = time(u?.timestamp) ?? last;
  ev.activity(ts);
  const model = str(u?.model) ?? 'unknown';
  if (u) ev.meta({ model });
  for (const b of blocks) {
    if (b.type !== 'tool_use') continue;
    const id = str(b.id);
    const name = str(b.name);
    if (!id || !name) ev.skipped('unknown_shape');
    else if (ev.firstTime(`call:${id}`)) ev.toolCall(id, classifyTool(name));
  }
  const state = obj(m.state);
  // An answer still streaming has no final usage yet.
  if (state?.type === 'streaming') return ts;
  if (u && ev.firstTime(`usage:${key}`)) {
    const cacheCreation = numberOf(u.cacheCreationInputTokens);
    // GPT models: the uncached prompt is recorded as cache creation.
    const gpt = /^gpt-/i.test(model);
    const input = numberOf(u.inputTokens) + (gpt ? cacheCreation : 0);
    const cacheRead = numberOf(u.cacheReadInputTokens);
    const usage = {
      input,
      output: numberOf(u.outputTokens),
      cacheRead,
      cacheWrite: gpt ? 0 : cacheCreation,
      cacheWrite1h: 0,
      reasoning: 0,
    };
    const prompt = input + cacheRead + usage.cacheWrite;
    ev.usage(model, usage, prompt, ts);
    const limit = numberOf(u.maxInputTokens);
    if (prompt > 0) ev.context(model, prompt, limit > 0 ? limit : undefined);
  }
  const outcome =
    state?.type === 'complete'
      ? state.stopReason === 'tool_use'
        ? undefined
        : 'completed'
      : ENDS.get(str(state?.type) ?? '');
  if (outcome && ev.firstTime(`end:${key}`)) ev.turnEnded(outcome, ts);
  return ts;
}

export const amp: DocumentReader<object> = {
  ...where,
  kind: 'documents',
  unrecorded: ['reasoning'],
  listFiles,
  initialState: () => ({}),
  readDocument,
};
