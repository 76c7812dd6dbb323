// Where OpenClaw's agents keep their sessions (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import { listDir } from '../../files/dir.js';
import type { Where } from '../reader.js';

export const DB = 'openclaw-agent.sqlite';

export const agents = (root: string) => listDir(join(root, 'agents')).filter((e) => e.isDirectory);
export const dbOf = (agent: string) => join(agent, 'agent', DB);

export const openclaw: Where = {
  harness: 'openclaw',
  defaultRoots: (env, home) => [
    ...new Set([env.OPENCLAW_STATE_DIR || join(home, '.openclaw'), join(home, '.openclaw')]),
  ],
  // A new agent's folders show up under `agents/`; they are watched from the next scan.
  watchPaths: (root) => agents(root).map((a) => join(a.path, 'sessions')),
  watchFiles: (root) => agents(root).flatMap((a) => [dbOf(a.path), `${dbOf(a.path)}-wal`]),
};
