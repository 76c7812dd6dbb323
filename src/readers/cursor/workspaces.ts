// The folder of a Cursor chat (cursor-ide §5): its own `workspaceIdentifier` (3.x), else the
// header Cursor keeps of it (the `composerHeaders` table's `workspaceId`, the global
// `composer.composerHeaders` list), else the window whose workspace database lists it
// (`workspaceStorage/<id>/state.vscdb`: `composer.composerData`, `composer.composerHeaders`,
// the `workbench.panel.composerChatViewPane*` keys), with that window's `workspace.json`.
// Each workspace folder is read again only when one of its files changed.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { listDir, readText } from '../../files/dir.js';
import { jsonObject, obj, str, type Json } from '../fields.js';
import { readDatabase } from '../sqlite.js';
import { keyValue, keysWithPrefix } from '../vscdb.js';
import { workspaceStorage } from './where.js';

/** A path from a VS Code URI: `file:` (a Windows drive without its leading slash), `vscode-remote:` (the remote path). */
export function uriPath(uri: string): string | undefined {
  const m = /^(file|vscode-remote):\/\/([^/]*)(\/.*)?$/.exec(uri);
  if (!m) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(m[3] ?? '/');
  } catch {
    return undefined;
  }
  // `file://wsl.localhost/<distro>/…`: the path inside the distribution.
  if (m[1] === 'file' && /^wsl(\.localhost|\$)$/i.test(m[2]!)) path = path.replace(/^\/[^/]+/, '') || '/';
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1) : path;
}

/** The folder of a `workspaceIdentifier` (`uri.fsPath`, `uri.path`, `uri.external`), or undefined. */
export function identifierFolder(identifier: unknown): string | undefined {
  const uri = obj(obj(identifier)?.uri);
  const external = str(uri?.external);
  return str(uri?.fsPath) || str(uri?.path) || (external ? uriPath(external) : undefined);
}

interface Folder {
  sig: string;
  /** The window's folder (a multi-root window's `.code-workspace` file), if it has one. */
  folder?: string;
  composers: string[];
}

const CHAT_VIEW = 'workbench.panel.aichat.view.';

/** The chats a workspace database names, from the keys that list them. */
function composersIn(path: string): string[] {
  return readDatabase(path, (db) => {
    const ids = new Set<string>();
    const add = (v: unknown) => typeof v === 'string' && ids.add(v);
    for (const key of ['composer.composerData', 'composer.composerHeaders']) {
      const value = keyValue(db, 'ItemTable', key);
      for (const c of Array.isArray(value?.allComposers) ? value.allComposers : []) add(obj(c)?.composerId);
      for (const c of Array.isArray(value?.selectedComposerIds) ? value.selectedComposerIds : []) add(c);
    }
    const panes = [...keysWithPrefix(db, 'ItemTable', 'workbench.panel.composerChatViewPane')].filter(
      (k) => !k.endsWith('.hidden'),
    );
    for (const pane of panes) {
      for (const k of Object.keys(keyValue(db, 'ItemTable', pane) ?? {}))
        if (k.startsWith(CHAT_VIEW)) add(k.slice(CHAT_VIEW.length));
    }
    return [...ids];
  });
}

/** The folder `workspace.json` names: `folder`, or a multi-root window's `workspace` file. */
function folderOf(json: Json | undefined): string | undefined {
  const uri = str(json?.folder) ?? str(json?.workspace);
  return uri ? uriPath(uri) : undefined;
}

/** Every workspace of a user dir, read as it changes; kept in memory (it is no count). */
export class Workspaces {
  private readonly folders = new Map<string, Folder>();
  private byComposer?: Map<string, string>;
  private fresh = false;

  constructor(private readonly userDir: string) {}

  /** A new read of the store: the workspaces are looked at again, once, if a chat needs them. */
  newRead(): void {
    this.fresh = false;
  }

  /** Reads the workspaces that changed since the last refresh (once a read). */
  private refresh(): void {
    if (this.fresh) return;
    this.fresh = true;
    const seen = new Set<string>();
    let changed = false;
    for (const e of listDir(workspaceStorage(this.userDir))) {
      if (!e.isDirectory) continue;
      seen.add(e.name);
      const files = ['workspace.json', 'state.vscdb', 'state.vscdb-wal'].map((f) => join(e.path, f));
      const sig = files
        .map((f) => {
          const st = statSync(f, { throwIfNoEntry: false });
          return st ? `${st.size}:${st.mtimeMs}` : '-';
        })
        .join('/');
      if (this.folders.get(e.name)?.sig === sig) continue;
      changed = true;
      const folder = folderOf(jsonObject(readText(files[0]!) ?? ''));
      let composers: string[] = [];
      let read = sig;
      try {
        if (folder && !sig.includes('/-/')) composers = composersIn(files[1]!);
      } catch {
        // A database being written, or damaged: the next refresh reads it again.
        read = 'unread';
      }
      this.folders.set(e.name, { sig: read, folder, composers });
    }
    for (const name of this.folders.keys()) {
      if (!seen.has(name)) {
        this.folders.delete(name);
        changed = true;
      }
    }
    if (changed) this.byComposer = undefined;
  }

  /** The folder of a workspace by its id (`workspaceStorage/<id>`). */
  folderOfWorkspace(id: string): string | undefined {
    this.refresh();
    return this.folders.get(id)?.folder;
  }

  /** The folder of the window whose database lists a chat (the first found). */
  folderOfComposer(id: string): string | undefined {
    this.refresh();
    if (!this.byComposer) {
      this.byComposer = new Map();
      for (const f of this.folders.values()) {
        for (const c of f.composers) if (f.folder && !this.byComposer.has(c)) this.byComposer.set(c, f.folder);
      }
    }
    return this.byComposer.get(id);
  }
}
