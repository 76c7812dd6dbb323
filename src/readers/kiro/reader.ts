// Kiro CLI's session bundles (closed source; the format from peer readers of real files):
// `sessions/cli/<uuid>.jsonl`, the append-only log (`{version: "v1", kind, data}`: `Prompt`, with
// the only time, unix seconds; `AssistantMessage` with `toolUse` blocks; `ToolResults` with each
// result's `status`), and `<uuid>.json`, the sidecar Kiro rewrites every turn (`cwd`, the model,
// `parent_session_id`, and per user turn its `result` `Ok`/`Err`, `end_timestamp`,
// `turn_duration` and credits). The log is read as it grows, the sidecar whole when it changes:
// both report to the session, a turn keyed by its prompt's message id (the sidecar's
// `message_ids[0]`), so that it starts and ends once whichever file is read first.
// The log has no turn end; a turn the sidecar does not hold yet is open.
//
// Kiro writes its token counts as 0 (`input_token_count`, `output_token_count`): no token series
// and no cost. It bills credits (`metering_usage`), which the metrics catalog has no series for.
// The model is mostly `auto` (the model served is not recorded). A subagent is a sibling bundle
// naming its parent; its first prompt is the goal it was given, not a person's prompt.

import { basename, dirname, join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import type { ToolCall, ToolKind } from '../../session/types.js';
import { TOKEN_TYPES } from '../../session/vocabulary.js';
import { listDir, readSmall } from '../../files/dir.js';
import { jsonObject, num, obj, str } from '../fields.js';
import { builtinTool } from '../tools.js';
import { documentObject, parsable } from '../document.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { kiro as where } from './where.js';

export interface KiroState {
  /** The log's session's folder (its sidecar's `cwd`, when the log was first read). */
  cwd?: string;
  /** The log of a subagent's session (its sidecar names a parent): its prompt is its goal. */
  child?: boolean;
  /** The log's calls with no result yet: a result read after the sidecar ended its turn names its call. */
  calls?: Record<string, ToolCall>;
  /** The session's `updated_at` last reported (the sidecar's). */
  updated?: number;
}

function listFiles(dir: string): SessionFile[] {
  const names = new Set(
    listDir(dir)
      .filter((e) => e.isFile)
      .map((e) => e.name),
  );
  // The sidecar first: the turns it holds are over, and only a prompt of the log it does not
  // hold yet opens one (the turn running now).
  return [...names]
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => {
      const id = basename(n, '.jsonl');
      const log: SessionFile = { path: join(dir, n), sessionId: id };
      return names.has(`${id}.json`)
        ? [{ path: join(dir, `${id}.json`), sessionId: id, document: true as const }, log]
        : [log];
    });
}

// What a log takes from its sidecar when it is first read.
const SIDECAR: Shape = { cwd: true, parent_session_id: true };

/**
 * The sidecar's folder and parent, for its log. Held to a document's bound, as the sidecar's own
 * read is (a sidecar skipped there as too dense is not read here either), and scanned, not parsed:
 * two strings are wanted of it, and this read is synchronous (at most one pass over 16 MB,
 * `readSmall`'s limit, however dense).
 */
function sidecarOf(file: SessionFile): Fields | undefined {
  const bytes = readSmall(join(dirname(file.path), `${file.sessionId}.json`));
  return bytes && parsable(bytes) ? scanRecord(bytes, SIDECAR) : undefined;
}

function initialState(file: SessionFile): KiroState {
  if (file.document) return {};
  const side = sidecarOf(file);
  const cwd = side?.text('cwd');
  return { ...(cwd ? { cwd } : {}), ...(side?.text('parent_session_id') ? { child: true } : {}) };
}

// Kiro's built-in tools (the Q-era names of older sessions too); others are `other`.
const KINDS: Record<string, ToolKind> = {
  read: 'read',
  fs_read: 'read',
  write: 'edit',
  edit: 'edit',
  fs_write: 'edit',
  shell: 'execute',
  execute_bash: 'execute',
  grep: 'search',
  glob: 'search',
  web_fetch: 'fetch',
  web_search: 'search',
  subagent: 'agent',
  todo: 'plan',
};

function readLine(line: Buffer, state: KiroState, file: SessionFile, ev: SessionEvents): void {
  const rec = jsonObject(line.toString('utf8'));
  if (!rec) return ev.skipped('parse_error');
  const data = obj(rec.data);
  const id = str(data?.message_id);
  const content = Array.isArray(data?.content) ? data.content.map(obj) : undefined;
  if (!data || !id || !content) return ev.skipped('unknown_shape');
  if (state.cwd) ev.meta({ cwd: state.cwd });
  switch (rec.kind) {
    case 'Prompt': {
      const seconds = num(obj(data.meta)?.timestamp);
      // Past the last time a Date holds: damage.
      if (!(seconds > 0) || seconds * 1000 > 8.64e15) return ev.skipped('implausible_value');
      const ts = seconds * 1000;
      ev.activity(ts);
      if (ev.firstTime(`prompt:${file.sessionId}:${id}`) && !state.child) ev.prompt(ts);
      // A turn still open at the next prompt has no end in the sidecar: Kiro was stopped in it.
      if (ev.firstTime(`turn:${file.sessionId}:${id}`)) ev.turnStarted(ts, 'interrupted');
      return;
    }
    case 'AssistantMessage':
      for (const b of content) {
        const use = b?.kind === 'toolUse' ? obj(b.data) : undefined;
        const callId = str(use?.toolUseId);
        const name = str(use?.name);
        if (!callId || !name || !ev.firstTime(`call:${file.sessionId}:${callId}`)) continue;
        const call = builtinTool(name, { kinds: KINDS });
        (state.calls ??= {})[callId] = call;
        ev.toolCall(callId, call);
      }
      return;
    case 'ToolResults':
      for (const b of content) {
        const result = b?.kind === 'toolResult' ? obj(b.data) : undefined;
        const callId = str(result?.toolUseId);
        // `error` is also a call the person cancelled; a shell's non-zero exit is a `success`.
        if (!callId || !ev.firstTime(`result:${file.sessionId}:${callId}`)) continue;
        const call = state.calls?.[callId];
        delete state.calls?.[callId];
        ev.toolResult(callId, result?.status === 'error', call);
      }
      return;
    case 'Clear':
      return;
    default:
      return ev.skipped('unknown_shape');
  }
}

/** The sidecar: where the session works, its model, and each user turn's end and outcome. */
function readDocument(doc: Buffer, state: KiroState, file: SessionFile, ev: SessionEvents): void {
  const side = documentObject(doc, ev);
  if (!side) return;
  const sessionState = obj(side.session_state);
  if (!sessionState) return ev.skipped('parse_error');
  const model = str(obj(obj(sessionState.rts_model_state)?.model_info)?.model_id);
  ev.meta({ cwd: str(side.cwd), model });
  const updated = Date.parse(str(side.updated_at) ?? '');
  if (updated > (state.updated ?? 0)) {
    state.updated = updated;
    ev.activity(updated);
  }
  const turns = obj(sessionState.conversation_metadata)?.user_turn_metadatas;
  for (const raw of Array.isArray(turns) ? turns : []) {
    const t = obj(raw);
    const first = Array.isArray(t?.message_ids) ? str(t.message_ids[0]) : undefined;
    const end = num(t?.end_timestamp) * 1000;
    const result = obj(t?.result);
    if (!t || !first || !(end > 0) || end > 8.64e15 || !result) {
      ev.skipped('unknown_shape');
      continue;
    }
    // A turn the log did not open (it is read after the sidecar) starts at its end less its duration.
    if (ev.firstTime(`turn:${file.sessionId}:${first}`)) ev.turnStarted(end - num(t.turn_duration) * 1000);
    if (ev.firstTime(`end:${file.sessionId}:${first}`)) ev.turnEnded('Err' in result ? 'failed' : 'completed', end);
  }
}

export const kiro: LineReader<KiroState> = {
  ...where,
  kind: 'files',
  // Kiro writes its token counts as 0: no token (and so no cost) series at all.
  unrecorded: TOKEN_TYPES,
  listFiles,
  initialState,
  readLine,
  readDocument,
};
