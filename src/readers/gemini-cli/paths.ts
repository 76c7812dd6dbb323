// Where Gemini CLI keeps its files. Only `tmp/<project>/chats/` (sessions) is listed, and the two
// small files that say a project's real path are read: `tmp/<project>/.project_root` and
// `projects.json`. Settings, accounts and `installation_id` are never opened.

import { createHash } from 'node:crypto';
import { basename, dirname, join, sep } from 'node:path';
import type { SessionFile } from '../reader.js';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, obj } from '../fields.js';

export function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  // GEMINI_CLI_HOME replaces the home folder, under which the CLI still uses `.gemini`.
  return [join(env.GEMINI_CLI_HOME || home, '.gemini')];
}

// `session-<UTC minute>-<first 8 characters of the session id>.jsonl`; `.json` before 0.39.
const SESSION = /^session-.*-([^-.]+)\.(jsonl|json)$/;

/**
 * `tmp/<project>/chats/session-*.jsonl` (before 0.39 `session-*.json`, one JSON document
 * rewritten whole) and subagent sessions, `tmp/<project>/chats/<parent session id>/<id>.jsonl`,
 * which belong to their parent. A main file's name holds only the start of its session id: the
 * reader takes the whole id from the file's first record.
 */
export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(join(root, 'tmp'))) {
    if (!project.isDirectory) continue;
    for (const e of listDir(join(project.path, 'chats'))) {
      const m = e.isFile ? SESSION.exec(e.name) : null;
      if (m) files.push({ path: e.path, sessionId: m[1]!, ...(m[2] === 'json' ? { document: true as const } : {}) });
      else if (e.isDirectory) {
        for (const s of listDir(e.path))
          if (s.isFile && s.name.endsWith('.jsonl')) files.push({ path: s.path, sessionId: e.name });
      }
    }
  }
  return files;
}

export function isSubagentFile(file: SessionFile): boolean {
  return basename(dirname(file.path)) !== 'chats';
}

/**
 * The real path of the project a session file belongs to: the `.project_root` marker in its
 * project folder (0.29+), else the `projects.json` entry whose SHA-256 is the session's
 * `projectHash` (the CLI's project id, and the folder name before 0.29).
 */
export function projectRoot(file: SessionFile, projectHash: string | undefined): string | undefined {
  const at = file.path.lastIndexOf(`${sep}chats${sep}`);
  if (at === -1) return undefined;
  const projectDir = file.path.slice(0, at);
  const marked = readText(join(projectDir, '.project_root'))?.trim();
  if (marked) return marked;
  if (!projectHash) return undefined;
  const registry = jsonObject(readText(join(dirname(dirname(projectDir)), 'projects.json')) ?? '');
  const paths = Object.keys(obj(registry?.projects) ?? {});
  return paths.find((p) => createHash('sha256').update(p).digest('hex') === projectHash);
}
