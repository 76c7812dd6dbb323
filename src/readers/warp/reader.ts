// Warp's agent conversations: the terminal keeps them in its SQLite database `warp.sqlite`, in its
// state folder (`$XDG_STATE_HOME/warp-terminal` or `~/.local/state/warp-terminal` on Linux; see
// where.ts for macOS and Windows). Nothing else there (blocks, settings, the user's credentials in
// the keychain) is opened. What is read, and what Warp does not record, is in database.ts.

import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readWarp, type WarpState } from './database.js';
import { databases, warp as where } from './where.js';

export const warp: StoreReader<WarpState> = {
  ...where,
  kind: 'store',
  // `total_charged_usage` has no reasoning bucket (whether output includes it is not said).
  unrecorded: ['reasoning'],
  listFiles: databases,
  initialState: () => ({ since: 0, query: 0, pending: [], marks: {} }),
  readStore(file, state, eventsOf) {
    return readChangedDatabase(file.path, state, (db) => readWarp(db, state, eventsOf));
  },
};
