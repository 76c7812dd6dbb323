// Cline CLI 3.x: per session, `sessions/<id>/<id>.json` (the manifest: cwd, git branch, model,
// pid, status, exit code, session totals) and `<id>.messages.json` (the conversation: messages
// with ids and times, each answer with its model and `metrics`), both JSON documents rewritten
// whole, under `~/.cline/data` (`$CLINE_DATA_DIR`); `db/sessions.db` holds a row per session
// like the manifest. The real CLI's files are in test/fixtures/captures/cline.
//
// Tokens are each answer's `metrics`, whose inputTokens includes cache reads and writes (Cline's
// own telemetry takes both out of it). The manifest's `metadata.usage` is the same sum: not read.
// Every record counts once by its id, whichever read of the rewritten documents first holds it.
// Reasoning tokens are not recorded (inside output).

import { dirname, join } from 'node:path';
import { type DocumentReader, type DocumentSteps, type SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { usageFromPrompt, type RegistryEntry, type TurnOutcome } from '../../session/types.js';
import { documentObject } from '../document.js';
import { numberOf, obj, str, time, type Json } from '../fields.js';
import { fileStat, isFile, listDir } from '../../files/dir.js';
import { readDatabase } from '../sqlite.js';
import { classifyTool } from './tools.js';
import { withExtensionTasks } from '../vscode-tasks/reader.js';
import { cliSessions as cliWhere, CLINE_EXTENSION } from './where.js';

export interface ClineState {
  /** Manifest: the end (`ended_at`) already reported, so that a rewrite ends no turn again. */
  ended?: string;
}

const MESSAGES = '.messages.json';

// The sessions folder only: the data folder also holds the providers' settings, with API keys.
function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const dir of listDir(root)) {
    if (!dir.isDirectory) continue;
    const id = dir.name;
    // The manifest first: the session's folder, branch and model are known before its tokens count.
    for (const name of [`${id}.json`, `${id}${MESSAGES}`]) {
      const path = join(dir.path, name);
      const stat = fileStat(path);
      if (stat) files.push({ path, sessionId: id, document: true, stat });
    }
  }
  return files;
}

/** The manifest's final status as a turn's outcome (`running` has none). */
const OUTCOMES = new Map<string, TurnOutcome>([
  ['completed', 'completed'],
  ['failed', 'failed'],
  ['cancelled', 'interrupted'],
  ['aborted', 'interrupted'],
]);

function* readDocument(doc: Buffer, state: ClineState, file: SessionFile, ev: SessionEvents): DocumentSteps {
  const d = documentObject(doc, ev);
  if (!d) return;
  if (file.path.endsWith(MESSAGES)) return yield* conversation(d, file.sessionId, ev);
  manifest(d, state, ev);
}

function manifest(m: Json, state: ClineState, ev: SessionEvents): void {
  const cwd = str(m.cwd);
  const started = time(m.started_at);
  if (!cwd || started === undefined) return ev.skipped('unknown_shape');
  ev.activity(started);
  ev.meta({ cwd, gitBranch: str(obj(obj(m.metadata)?.git)?.branch), model: str(m.model) });
  const endedAt = str(m.ended_at);
  const ended = time(endedAt);
  if (ended === undefined || state.ended === endedAt) return;
  ev.activity(ended);
  state.ended = endedAt;
  // A turn its messages leave open (an answer cut off) ended with the session, as it says.
  const outcome = OUTCOMES.get(str(m.status) ?? '');
  if (outcome) ev.turnEnded(outcome, ended);
}

function* conversation(d: Json, session: string, ev: SessionEvents): DocumentSteps {
  if (!Array.isArray(d.messages)) return ev.skipped('unknown_shape');
  for (const raw of d.messages) {
    yield;
    const m = obj(raw);
    const id = str(m?.id);
    const ts = typeof m?.ts === 'number' ? m.ts : undefined;
    if (!m || !id || ts === undefined || !Array.isArray(m.content)) {
      ev.skipped('unknown_shape');
      continue;
    }
    ev.activity(ts);
    const blocks = m.content.map(obj).filter((b): b is Json => b !== undefined);
    if (m.role === 'user') userMessage(blocks, `${session}:${id}`, ts, session, ev);
    else if (m.role === 'assistant') answer(m, blocks, `${session}:${id}`, ts, session, ev);
  }
}

function userMessage(blocks: Json[], key: string, ts: number, session: string, ev: SessionEvents): void {
  const results = blocks.filter((b) => b.type === 'tool_result');
  for (const b of results) {
    const callId = str(b.tool_use_id);
    if (!callId || !ev.firstTime(`result:${session}:${callId}`)) continue;
    // Each command of a call has its own `success`: one that failed fails the call.
    const items = Array.isArray(b.content) ? b.content : [];
    ev.toolResult(callId, b.is_error === true || items.some((i) => obj(i)?.success === false));
  }
  if (results.length > 0 || !blocks.some((b) => b.type === 'text')) return;
  if (!ev.firstTime(`prompt:${key}`)) return;
  ev.prompt(ts);
  // A turn still open got no answer that ended it: the CLI was stopped.
  ev.turnStarted(ts, 'interrupted');
}

function answer(m: Json, blocks: Json[], key: string, ts: number, session: string, ev: SessionEvents): void {
  const model = str(obj(m.modelInfo)?.id);
  if (model) ev.meta({ model });
  const meta = obj(m.metadata);
  // The failed request's error, shown as an answer: it ends the turn.
  if (meta?.displayRole === 'error') {
    if (ev.firstTime(`end:${key}`)) ev.turnEnded('failed', ts);
    return;
  }
  if (meta?.displayOnly === true) return;
  let calls = 0;
  for (const b of blocks) {
    const id = str(b.id);
    const name = str(b.name);
    if (b.type !== 'tool_use') continue;
    calls++;
    if (!id || !name) ev.skipped('unknown_shape');
    else if (ev.firstTime(`call:${session}:${id}`)) ev.toolCall(id, classifyTool(name));
  }
  const metrics = obj(m.metrics);
  // An answer is written whole once it came, with its metrics.
  if (!metrics) return;
  const prompt = numberOf(metrics.inputTokens);
  if (ev.firstTime(`usage:${key}`)) {
    const usage = usageFromPrompt(
      prompt,
      numberOf(metrics.outputTokens),
      numberOf(metrics.cacheReadTokens),
      numberOf(metrics.cacheWriteTokens),
      0,
    );
    ev.usage(model ?? 'unknown', usage, prompt, ts);
  }
  if (prompt > 0) ev.context(model ?? 'unknown', prompt);
  // An answer that calls no tool is the final one (Cline's own rule for a turn's end).
  if (calls === 0 && ev.firstTime(`end:${key}`)) ev.turnEnded('completed', ts);
}

/**
 * The sessions not ended in `db/sessions.db` beside the sessions folder, with the pid of the
 * process running each (a crash leaves a row not ended: whether the pid runs is the process table's
 * to say). A database that cannot be read now is read at the next scan.
 */
function registry(root: string): RegistryEntry[] {
  const path = join(dirname(root), 'db', 'sessions.db');
  if (!isFile(path)) return [];
  try {
    const rows = readDatabase(path, (db) =>
      db.prepare('SELECT session_id, pid FROM sessions WHERE ended_at IS NULL').all(),
    ) as { session_id: unknown; pid: unknown }[];
    return rows.flatMap((r) =>
      typeof r.session_id === 'string' && typeof r.pid === 'number' && r.pid > 0
        ? [{ sessionId: r.session_id, pid: r.pid }]
        : [],
    );
  } catch {
    return [];
  }
}

const cliSessions: DocumentReader<ClineState> = {
  ...cliWhere,
  kind: 'documents',
  unrecorded: ['reasoning'],
  listFiles,
  initialState: () => ({}),
  readDocument,
  registry,
};

/** The CLI's sessions and the VS Code extension's tasks (`saoudrizwan.claude-dev`, vscode-tasks/). */
export const cline = withExtensionTasks(cliSessions, CLINE_EXTENSION);
