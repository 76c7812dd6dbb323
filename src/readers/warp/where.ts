// Where Warp's database is (its parser, reader.ts, is loaded once a root is there).

import { join } from 'node:path';
import { isFile } from '../../files/dir.js';
import type { SessionFile, Where } from '../reader.js';

// The terminal's database, and the one of its TUI front end (`warp-tui`) under `tui/`.
const DATABASES = ['warp.sqlite', join('tui', 'warp.sqlite')];

/** The databases under a root that exist; a store's own id is no session's (its rows name them). */
export function databases(root: string): SessionFile[] {
  return DATABASES.map((d, i) => ({ path: join(root, d), sessionId: i === 0 ? 'warp' : 'warp-tui' })).filter((f) =>
    isFile(f.path),
  );
}

export const warp: Where = {
  harness: 'warp',
  // Older builds' conversations have only a per-model total of every type: no token counted there is no drift.
  facts: { unsplitTokens: true },
  // warp_core's paths.rs: the state dir of the app's ProjectDirs. Linux: `$XDG_STATE_HOME/
  // warp-terminal` (Preview: `warp-terminal-preview`); macOS: the app group's container, else
  // `~/Library/Application Support/dev.warp.Warp-Stable`; Windows: `%LOCALAPPDATA%\warp\Warp\data`
  // (LOCALAPPDATA is set on Windows alone; that path is a peer reader's, not verified).
  defaultRoots: (env, home) => {
    if (env.LOCALAPPDATA) return [join(env.LOCALAPPDATA, 'warp', 'Warp', 'data')];
    const state = env.XDG_STATE_HOME || join(home, '.local', 'state');
    const support = join('Library', 'Application Support', 'dev.warp.Warp-Stable');
    return [
      join(state, 'warp-terminal'),
      join(state, 'warp-terminal-preview'),
      join(home, 'Library', 'Group Containers', '2BBY89MBSN.dev.warp', support),
      join(home, support),
    ];
  },
  watchPaths: () => [],
  watchFiles: (root) => DATABASES.flatMap((d) => [join(root, d), join(root, `${d}-wal`)]),
};
