// Where Copilot CLI keeps its files: `session-state/<session>/events.jsonl` (the older flat layout:
// `session-state/<session>.jsonl`) and, when the user points the OpenTelemetry file exporter there,
// `otel/*.jsonl`, and `session-store.db`, its per-call token counts (store.ts). `config.json`,
// `mcp-config.json` and `logs/` are never opened.

import { basename, join } from 'node:path';
import type { SessionFile } from '../reader.js';
import type { RegistryEntry } from '../../session/types.js';
import { isFile, listDir } from '../../files/dir.js';

export function defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  return [env.COPILOT_HOME || join(home, '.copilot')];
}

export const watchPaths = (root: string): string[] => [join(root, 'session-state'), join(root, 'otel')];

/** The store and its WAL, where its newest rows are until a checkpoint. */
export const watchFiles = (root: string): string[] => [join(root, STORE), `${join(root, STORE)}-wal`];

/** The store of every session's per-call token counts. */
export const STORE = 'session-store.db';

/** An OpenTelemetry export file holds spans of many sessions: each line names its own. */
export const OTEL_PREFIX = 'otel:';

export function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  // The store first: a scan reads its calls before the logs' run-end totals, which count only what it lacks.
  if (isFile(join(root, STORE))) files.push({ path: join(root, STORE), sessionId: STORE, store: true });
  for (const e of listDir(join(root, 'session-state'))) {
    if (e.isFile && e.name.endsWith('.jsonl')) files.push({ path: e.path, sessionId: basename(e.name, '.jsonl') });
    else if (e.isDirectory && listDir(e.path).some((f) => f.isFile && f.name === 'events.jsonl')) {
      files.push({ path: join(e.path, 'events.jsonl'), sessionId: e.name });
    }
  }
  for (const e of listDir(join(root, 'otel'))) {
    if (e.isFile && /\.jsonl?$/.test(e.name)) files.push({ path: e.path, sessionId: `${OTEL_PREFIX}${e.name}` });
  }
  return files;
}

const LOCK = /^inuse\.(\d+)\.lock$/;

/**
 * `session-state/<session>/inuse.<pid>.lock` marks a session a live process has open. It says
 * nothing of what the process does; a lock a crash left behind names a dead pid.
 */
export function registry(root: string): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const dir of listDir(join(root, 'session-state'))) {
    if (!dir.isDirectory) continue;
    for (const e of listDir(dir.path)) {
      const m = e.isFile ? LOCK.exec(e.name) : null;
      if (m) entries.push({ sessionId: dir.name, pid: Number(m[1]) });
    }
  }
  return entries;
}
