// The files of Copilot Chat under a user folder (where.ts): the chat journals, one per session,
// with the folder of the workspace each belongs to, and the extension's transcripts.

import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, str } from '../fields.js';
import type { SessionFile } from '../reader.js';
import { EMPTY_WINDOW, JOURNALS, TRANSCRIPTS, workspaces } from './where.js';

/**
 * The journals of a folder of them: `<id>.jsonl`, else the older `<id>.json` (VS Code reads the
 * log where it has both).
 */
function journalsIn(dir: string): SessionFile[] {
  const files = listDir(dir).filter((e) => e.isFile);
  const logs = new Set(files.filter((e) => e.name.endsWith('.jsonl')).map((e) => basename(e.name, '.jsonl')));
  return files.flatMap((e) => {
    const log = e.name.endsWith('.jsonl');
    const id = log ? basename(e.name, '.jsonl') : e.name.endsWith('.json') ? basename(e.name, '.json') : undefined;
    return id && (log || !logs.has(id)) ? [{ path: e.path, sessionId: id, document: true as const }] : [];
  });
}

/** Every session's journal under a user folder: its workspaces', then those of windows without one. */
export function journalFiles(root: string): SessionFile[] {
  return [
    ...workspaces(root).flatMap((w) => journalsIn(join(w.path, JOURNALS))),
    ...journalsIn(join(root, EMPTY_WINDOW)),
  ];
}

/** The extension's transcripts of every workspace. */
export function transcriptFiles(root: string): SessionFile[] {
  return workspaces(root).flatMap((w) =>
    listDir(join(w.path, TRANSCRIPTS))
      .filter((e) => e.isFile && e.name.endsWith('.jsonl'))
      .map((e) => ({ path: e.path, sessionId: basename(e.name, '.jsonl'), document: true as const })),
  );
}

/**
 * The folder of the workspace a journal is in (its `workspace.json`: the folder's `file://` URI,
 * or a `.code-workspace` file's, whose folder is taken); none for a window without one, or a
 * remote one.
 */
export function cwdOf(journal: string): string | undefined {
  const dir = dirname(journal);
  if (basename(dir) !== JOURNALS) return undefined;
  const manifest = jsonObject(readText(join(dirname(dir), 'workspace.json')) ?? '');
  const folder = str(manifest?.folder);
  const workspace = str(manifest?.workspace);
  const path = localPath(folder ?? workspace);
  return path && !folder ? dirname(path) : path;
}

function localPath(uri: string | undefined): string | undefined {
  if (!uri?.startsWith('file://')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
