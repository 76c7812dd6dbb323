// Where Claude Code keeps its files. Only `projects/` (transcripts) and `sessions/` (the live
// process registry) are read; credentials and settings are never opened.

import { basename, join } from 'node:path';
import type { SessionFile } from '../reader.js';
import { listDir } from '../../files/dir.js';

export function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  const configured =
    env.CLAUDE_CONFIG_DIR?.split(',')
      .map((p) => p.trim())
      .filter(Boolean) ?? [];
  return [...configured, join(home, '.claude'), join(home, '.config', 'claude')];
}

/**
 * `projects/<cwd slug>/<session>.jsonl` and its subagents,
 * `projects/<cwd slug>/<session>/subagents/agent-<id>.jsonl`, which belong to the same session.
 */
export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of listDir(join(root, 'projects'))) {
    if (!project.isDirectory) continue;
    for (const e of listDir(project.path)) {
      if (e.isFile && e.name.endsWith('.jsonl')) {
        files.push({ path: e.path, sessionId: basename(e.name, '.jsonl') });
      } else if (e.isDirectory) {
        for (const s of listDir(join(e.path, 'subagents'))) {
          if (s.isFile && s.name.startsWith('agent-') && s.name.endsWith('.jsonl'))
            files.push({ path: s.path, sessionId: e.name });
        }
      }
    }
  }
  return files;
}

export function isSubagentFile(file: SessionFile): boolean {
  return basename(file.path).startsWith('agent-');
}
