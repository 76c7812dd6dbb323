// Cursor's agent CLI (closed source): its transcripts,
// `projects/<cwd slug>/agent-transcripts/<chat id>/<chat id>.jsonl`, one `{role, message:
// {content}}` per line (Anthropic-style `text`, `tool_use` and `tool_result` blocks), with
// subagents in `<chat id>/subagents/<child>.jsonl`; and beside them, per chat,
// `chats/<md5 of cwd>/<chat id>/meta.json` (the real cwd: the slug is lossy) and `store.db`, whose
// `meta` row `0` (hex of JSON) names the model last used. The store's blobs (protobuf, some
// encrypted) are not read, and its `blobEncryptionKey` is never kept.
//
// Cursor keeps no tokens, cost or context on disk (it bills on its servers): the reader reports
// none, and no token or cost series is made. It writes no turn end and no time but the minute of
// each prompt (`<timestamp>` in the prompt's text): a turn ends with an answer that calls no tool,
// at its prompt's time, and tool calls have no error.

import { statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, num, str } from '../fields.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { readDatabase } from '../sqlite.js';
import { editorChats } from '../cursor/editor-chats.js';
import { classifyTool } from './tools.js';
import { cursorAgent as where } from './where.js';

export interface CursorState {
  /** A subagent's transcript: its tool calls count for the parent; its task is no prompt. */
  subagent: boolean;
  /** The time of the last prompt, which the answers after it take. */
  promptAt: number;
  /**
   * The mtimes of the chat's meta files when they were last reported (on the first record read,
   * and at each prompt when they changed: the model may be another).
   */
  described?: string;
}

function listFiles(root: string): SessionFile[] {
  const files = transcripts(root);
  // The editor's chats, which it writes here too, are read from its own database (harness `cursor`).
  const editor = editorChats(dirname(root), [...new Set(files.map((f) => f.sessionId))]);
  return files.filter((f) => !editor.has(f.sessionId));
}

function transcripts(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(join(root, 'projects'))) {
    if (!project.isDirectory) continue;
    for (const chat of listDir(join(project.path, 'agent-transcripts'))) {
      // Older builds wrote `agent-transcripts/<chat id>.jsonl`.
      if (chat.isFile && chat.name.endsWith('.jsonl'))
        files.push({ path: chat.path, sessionId: basename(chat.name, '.jsonl') });
      if (!chat.isDirectory) continue;
      const main = join(chat.path, `${chat.name}.jsonl`);
      if (listDir(chat.path).some((e) => e.isFile && e.path === main)) files.push({ path: main, sessionId: chat.name });
      for (const sub of listDir(join(chat.path, 'subagents'))) {
        if (sub.isFile && sub.name.endsWith('.jsonl')) files.push({ path: sub.path, sessionId: chat.name });
      }
    }
  }
  return files;
}

/** The root a transcript is under (`<root>/projects/...`). */
function rootOf(path: string): string {
  const at = path.lastIndexOf(`${sep}projects${sep}`);
  return at === -1 ? dirname(path) : path.slice(0, at);
}

/** A chat's folder, `chats/<md5 of cwd>/<chat id>` (listings are cached: no hashing of paths). */
function chatDir(root: string, chatId: string): string | undefined {
  for (const cwd of listDir(join(root, 'chats'))) {
    if (!cwd.isDirectory) continue;
    const chat = listDir(cwd.path).find((e) => e.isDirectory && e.name === chatId);
    if (chat) return chat.path;
  }
  return undefined;
}

/** The model the chat last used, from `store.db`'s meta row `0` (hex of JSON); only that field is kept. */
function lastUsedModel(dir: string): string | undefined {
  try {
    const row = readDatabase(join(dir, 'store.db'), (db) =>
      db.prepare("SELECT value FROM meta WHERE key = '0'").get(),
    ) as { value?: unknown } | undefined;
    const hex = typeof row?.value === 'string' ? row.value : undefined;
    return hex ? str(jsonObject(Buffer.from(hex, 'hex').toString('utf8'))?.lastUsedModel) : undefined;
  } catch {
    return undefined;
  }
}

/** Reports where the chat runs, its model and its last update, from its meta files, if they changed. */
function describe(file: SessionFile, state: CursorState, ev: SessionEvents): void {
  const dir = chatDir(rootOf(file.path), file.sessionId);
  if (!dir) {
    state.described = '';
    return;
  }
  const mtime = (name: string) => {
    try {
      return statSync(join(dir, name)).mtimeMs;
    } catch {
      return 0;
    }
  };
  const sig = `${mtime('meta.json')}/${mtime('store.db')}`;
  if (sig === state.described) return;
  state.described = sig;
  const meta = jsonObject(readText(join(dir, 'meta.json')) ?? '');
  const cwd = str(meta?.cwd);
  const model = lastUsedModel(dir);
  if (cwd || model) ev.meta({ cwd, model });
  const updated = num(meta?.updatedAtMs) || num(meta?.createdAtMs);
  if (updated) ev.activity(updated);
}

const STAMP = /<timestamp>(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d(?::\d\d)?)<\/timestamp>/;

/** The prompt's `<timestamp>` (to the minute; its zone is not known: read as local time). */
function stampOf(text: string): number | undefined {
  const m = STAMP.exec(text);
  const t = m ? Date.parse(`${m[1]}T${m[2]}`) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
}

// What is read of a transcript line: its role and its content blocks' kinds, ids, names and texts
// (tool results' own content, most of the bytes, is passed over undecoded).
const RECORD: Shape = {
  role: true,
  message: { content: { type: true, id: true, name: true, tool_use_id: true, text: true } },
};

/** A message's content: its blocks, or its text where the content is one string. */
interface Content {
  blocks: Fields[];
  text?: string;
}

function contentOf(message: Fields | undefined): Content | undefined {
  const text = message?.text('content');
  if (text !== undefined) return { blocks: [], text };
  const blocks = message?.items('content');
  return blocks && { blocks };
}

function readLine(line: Buffer, state: CursorState, file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const role = rec.text('role');
  const content = contentOf(rec.object('message'));
  if (!content || (role !== 'user' && role !== 'assistant')) return ev.skipped('unknown_shape');
  if (state.described === undefined) describe(file, state, ev);
  if (role === 'user') user(content, state, file, ev);
  else assistant(content, state, ev);
}

function user({ blocks, text }: Content, state: CursorState, file: SessionFile, ev: SessionEvents): void {
  for (const b of blocks) {
    const id = b.text('tool_use_id');
    // Cursor records no error of a call.
    if (b.text('type') === 'tool_result' && id) ev.toolResult(id, false);
  }
  const query = [text, ...blocks.map((b) => b.text('text'))].find((t) => t?.includes('<user_query>'));
  if (query === undefined || state.subagent) return;
  const ts = stampOf(query) ?? state.promptAt;
  state.promptAt = ts;
  ev.activity(ts);
  // The model may have been changed for this prompt.
  describe(file, state, ev);
  ev.prompt(ts);
  // A turn still open when the next prompt comes was cut short.
  ev.turnStarted(ts, 'interrupted');
}

function assistant({ blocks, text }: Content, state: CursorState, ev: SessionEvents): void {
  let calls = 0;
  for (const b of blocks) {
    const id = b.text('id');
    const name = b.text('name');
    if (b.text('type') !== 'tool_use' || !id || !name) continue;
    calls++;
    ev.toolCall(id, classifyTool(name));
  }
  // An answer that calls no tool ends the turn.
  if (calls === 0 && !state.subagent && (text !== undefined || blocks.some((b) => b.text('type') === 'text')))
    ev.turnEnded('completed', state.promptAt);
}

export const cursorAgent: LineReader<CursorState> = {
  ...where,
  kind: 'files',
  // Cursor keeps no token counts on disk: no token (and so no cost) series at all.
  unrecorded: ['input', 'output', 'cache_read', 'cache_write'],
  listFiles,
  initialState: (file) => ({ subagent: basename(dirname(file.path)) === 'subagents', promptAt: 0 }),
  readLine,
};
