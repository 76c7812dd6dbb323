// Which of Cursor's agent transcripts are the editor's chats (cursor-ide §9): since about
// February 2026 the editor also writes `~/.cursor/projects/<slug>/agent-transcripts/<id>/` for
// its agent chats, named by the chat's composer id. A transcript whose id is a `composerData:`
// row of the editor's global database is the editor's (read, with its times, model and status, as
// harness `cursor`); the agent CLI's reader leaves it, so that the chat is counted once.

import { readDatabase } from '../sqlite.js';
import { hasTable } from '../vscdb.js';
import { editorDatabases } from './where.js';

/**
 * The ids among `ids` that are chats of the editor whose user dir is under `home`. Throws when a
 * database is there but cannot be read (the listing is tried again, never counted twice).
 */
export function editorChats(home: string, ids: readonly string[]): Set<string> {
  const owned = new Set<string>();
  if (ids.length === 0) return owned;
  for (const path of editorDatabases(home)) {
    readDatabase(path, (db) => {
      if (!hasTable(db, 'cursorDiskKV')) return;
      const has = db.prepare("SELECT 1 FROM cursorDiskKV WHERE key = 'composerData:' || ?").pluck();
      for (const id of ids) if (has.get(id) !== undefined) owned.add(id);
    });
  }
  return owned;
}
