// Where GitHub Copilot Chat in VS Code keeps its chats (its parser, reader.ts, is loaded once a
// root is there). A root is an editor's user folder, `<user dir>/User`: `$XDG_CONFIG_HOME` or
// `~/.config` on Linux, `~/Library/Application Support` on macOS, `%APPDATA%` on Windows, for VS
// Code, Insiders, VSCodium and Code - OSS (the chat journal is VS Code core's: every build writes
// it). Under it:
// - `workspaceStorage/<workspace id>/chatSessions/<session id>.jsonl` (VS Code ≥ 1.109; `.json`
//   before), and `globalStorage/emptyWindowChatSessions/` for a window without a folder;
// - `workspaceStorage/<workspace id>/GitHub.copilot-chat/transcripts/<session id>.jsonl`, the
//   extension's transcripts (its 20 newest);
// - `globalStorage/github.copilot-chat/agent-traces.db`, the extension's OTel spans (opt-in).
// A workspace's folders are watched from the scan after they appear.

import { join } from 'node:path';
import { isDirectory, listDir } from '../../files/dir.js';
import type { Where } from '../reader.js';

const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Code - OSS'];

export const WORKSPACES = 'workspaceStorage';
export const JOURNALS = 'chatSessions';
export const EMPTY_WINDOW = join('globalStorage', 'emptyWindowChatSessions');
export const TRANSCRIPTS = join('GitHub.copilot-chat', 'transcripts');
export const TRACES = join('globalStorage', 'github.copilot-chat', 'agent-traces.db');

/** Every workspace's folder under a user folder. */
export const workspaces = (root: string) => listDir(join(root, WORKSPACES)).filter((e) => e.isDirectory);

export const copilotVscode: Where = {
  harness: 'copilot-vscode',
  defaultRoots: (env, home) => {
    const bases = [
      env.XDG_CONFIG_HOME || join(home, '.config'),
      join(home, 'Library', 'Application Support'),
      // APPDATA is set on Windows alone.
      ...(env.APPDATA ? [env.APPDATA] : []),
    ];
    return bases.flatMap((b) => EDITORS.map((e) => join(b, e, 'User')));
  },
  // Only the folders there: a workspace without chats (most) is not waited in for one.
  watchPaths: (root) => [
    ...workspaces(root)
      .flatMap((w) => [join(w.path, JOURNALS), join(w.path, TRANSCRIPTS)])
      .filter(isDirectory),
    join(root, EMPTY_WINDOW),
  ],
  watchFiles: (root) => [join(root, TRACES), `${join(root, TRACES)}-wal`],
};
