// Where Codex's rollouts are (its parser, reader.ts, is loaded once a root is there).

import { basename, join } from 'node:path';
import type { Where } from '../reader.js';

/** A rollout's file name; group 1 is its session (thread) id. */
export const ROLLOUT = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

export const codex: Where = {
  harness: 'codex',
  defaultRoots: (env, home) => [env.CODEX_HOME || join(home, '.codex')],
  watchPaths: (root) => [join(root, 'sessions'), join(root, 'archived_sessions')],
  // The process that runs a thread's turns (the app-server daemon) holds its rollout open.
  sessionOfOpenFile: (path) => ROLLOUT.exec(basename(path))?.[1],
};
