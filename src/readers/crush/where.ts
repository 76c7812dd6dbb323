// Where Crush's databases are (its parser, reader.ts, is loaded once a root is there).

import { isAbsolute, join, resolve } from 'node:path';
import { isFile, readText } from '../../files/dir.js';
import { jsonObject, obj, str } from '../fields.js';
import type { SessionFile, Where } from '../reader.js';

const PROJECTS = 'projects.json';

/** Each listed project's database that exists; the file's session id is the project's folder. */
export function databases(root: string): SessionFile[] {
  const list = jsonObject(readText(join(root, PROJECTS)) ?? '')?.projects;
  const out: SessionFile[] = [];
  for (const p of Array.isArray(list) ? list : []) {
    const path = str(obj(p)?.path);
    if (!path || !isAbsolute(path)) continue;
    const dataDir = str(obj(p)?.data_dir) || '.crush';
    const db = resolve(path, dataDir, 'crush.db');
    if (isFile(db) && !out.some((f) => f.path === db)) out.push({ path: db, sessionId: path });
  }
  return out;
}

export const crush: Where = {
  harness: 'crush',
  // Windows: `%LOCALAPPDATA%\crush` where no XDG folder is set (LOCALAPPDATA is set on Windows alone).
  defaultRoots: (env, home) => [
    env.CRUSH_GLOBAL_DATA || join(env.XDG_DATA_HOME || env.LOCALAPPDATA || join(home, '.local', 'share'), 'crush'),
  ],
  watchPaths: () => [],
  // The list of projects, and each project's database (outside the root, in the project).
  watchFiles: (root) => [join(root, PROJECTS), ...databases(root).flatMap((f) => [f.path, `${f.path}-wal`])],
};
