// Builds OpenCode's JSON storage (before 1.2) file by file for reader tests: pretty-printed
// objects with their ids, each file's mtime set to the time it was (re)written.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './run.js';

// In the past, like the storage of a release that no longer writes it: a file younger than a few
// seconds is read again on every read (it may share its mtime with a later write).
export const T0 = Date.UTC(2026, 0, 12, 10, 0, 0);
/** Times are given in seconds after T0: longer than the reader's overlap, so cursors show. */
export const at = (t: number) => T0 + t * 1000;

export class OpenCodeStorage {
  /** The data folder (the reader's root); the storage is its `storage` folder. */
  constructor(readonly root = tempDir()) {}

  /** Writes a file as OpenCode does, or raw text as given, stamped at `at(t)`. */
  write(rel: string, t: number, content: object | string): void {
    const path = join(this.root, 'storage', rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    utimesSync(path, new Date(at(t)), new Date(at(t)));
  }

  session(
    id: string,
    t: number,
    opts: { parent?: string; directory?: string; project?: string; updated?: number } = {},
  ): void {
    const project = opts.project ?? 'global';
    const updated = opts.updated ?? t;
    this.write(`session/${project}/${id}.json`, updated, {
      id,
      slug: 'brave-otter',
      version: '1.1.65',
      projectID: project,
      directory: opts.directory ?? '/src/app',
      ...(opts.parent ? { parentID: opts.parent } : {}),
      title: 'A session',
      time: { created: at(t), updated: at(updated) },
    });
  }

  /** The session file is rewritten when a turn starts (a prompt updates it) or its summary changes. */
  touch(id: string, t: number, opts: { parent?: string; project?: string } = {}): void {
    this.session(id, 0, { ...opts, updated: t });
  }

  message(session: string, id: string, t: number, data: object, updated = t): void {
    this.write(`message/${session}/${id}.json`, updated, { id, sessionID: session, time: { created: at(t) }, ...data });
  }

  user(session: string, id: string, t: number, text = 'do it'): void {
    this.message(session, id, t, {
      role: 'user',
      agent: 'build',
      model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' },
    });
    this.part(session, id, `${id}-text`, t, { type: 'text', text });
  }

  assistant(session: string, id: string, t: number, extra: object = {}, updated = t): void {
    this.message(
      session,
      id,
      t,
      { role: 'assistant', parentID: 'u', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', ...extra },
      updated,
    );
  }

  part(session: string, message: string, id: string, t: number, data: object): void {
    this.write(`part/${message}/${id}.json`, t, { id, sessionID: session, messageID: message, ...data });
  }
}
