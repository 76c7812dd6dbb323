// Where Claude Code keeps its files. Only `projects/` (transcripts) and `sessions/` (the live
// process registry) are read; credentials and settings are never opened.

import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SessionFile } from '../reader.js';

export function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  const configured = env.CLAUDE_CONFIG_DIR?.split(',').map((p) => p.trim()).filter(Boolean) ?? [];
  return [...configured, join(home, '.claude'), join(home, '.config', 'claude')];
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * `projects/<cwd slug>/<session>.jsonl` and its subagents,
 * `projects/<cwd slug>/<session>/subagents/agent-<id>.jsonl`, which belong to the same session.
 */
export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const project of entries(join(root, 'projects'))) {
    if (!project.isDirectory()) continue;
    const dir = join(root, 'projects', project.name);
    for (const e of entries(dir)) {
      if (e.isFile() && e.name.endsWith('.jsonl')) {
        files.push({ path: join(dir, e.name), sessionId: basename(e.name, '.jsonl') });
      } else if (e.isDirectory()) {
        const subagents = join(dir, e.name, 'subagents');
        for (const s of entries(subagents)) {
          if (s.isFile() && s.name.startsWith('agent-') && s.name.endsWith('.jsonl')) {
            files.push({ path: join(subagents, s.name), sessionId: e.name });
          }
        }
      }
    }
  }
  return files;
}

export function isSubagentFile(file: SessionFile): boolean {
  return basename(file.path).startsWith('agent-');
}
