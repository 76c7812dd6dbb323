// Where Zed keeps its agent threads: `<data>/threads/threads.db`, where `<data>` is Zed's data dir:
// `$FLATPAK_XDG_DATA_HOME/zed` in a Flatpak, else `$XDG_DATA_HOME/zed` or `~/.local/share/zed`
// (Linux), `~/Library/Application Support/Zed` (macOS), `%LOCALAPPDATA%\Zed` (Windows) (Zed's
// `paths::data_dir`). Each is looked in, wherever the exporter runs: those that do not exist hold
// nothing. The root is the `threads` folder itself: the rest of the data dir (the workspace
// database, extensions, logs) is never needed, nor mounted. Zed's `--user-data-dir` moves it: a
// configured root is then `<that dir>/threads`. Its parser, reader.ts, is loaded once a root is there.

import { join } from 'node:path';
import type { Where } from '../reader.js';

export const dbOf = (root: string) => join(root, 'threads.db');

function dataDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  return [
    ...new Set([
      ...(env.FLATPAK_XDG_DATA_HOME ? [join(env.FLATPAK_XDG_DATA_HOME, 'zed')] : []),
      join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'zed'),
      join(home, 'Library', 'Application Support', 'Zed'),
      // LOCALAPPDATA is set on Windows alone.
      ...(env.LOCALAPPDATA ? [join(env.LOCALAPPDATA, 'Zed')] : []),
    ]),
  ];
}

export const zed: Where = {
  harness: 'zed',
  defaultRoots: (env, home) => dataDirs(env, home).map((d) => join(d, 'threads')),
  watchPaths: () => [],
  watchFiles: (root) => [dbOf(root), `${dbOf(root)}-wal`],
};
