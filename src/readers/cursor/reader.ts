// Cursor's editor (closed source; cursor-ide reference): its chats in the global `state.vscdb`,
// read incrementally as Cursor rewrites it (composers.ts), their folders from the workspaces
// (workspaces.ts). Sessions, prompts, turns and their outcomes, tool calls and their failures,
// approvals pending, the model and Cursor's context meter. Current builds record no token counts
// (`tokenCount` is {0,0}) and no cost: no token or cost series.

import { dirname } from 'node:path';
import type { StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { TOKEN_TYPES } from '../../session/vocabulary.js';
import { readCursor, type CursorState } from './composers.js';
import { cursor as where, databases } from './where.js';
import { Workspaces } from './workspaces.js';

// The workspaces of each user dir, kept between reads (a cache of folders, no count).
const workspaces = new Map<string, Workspaces>();

export const cursor: StoreReader<CursorState> = {
  ...where,
  kind: 'store',
  unrecorded: TOKEN_TYPES,
  listFiles: databases,
  initialState: () => ({ mark: 0, composers: {} }),
  readStore(file, state, eventsOf) {
    const userDir = dirname(dirname(dirname(file.path)));
    let spaces = workspaces.get(userDir);
    if (!spaces) workspaces.set(userDir, (spaces = new Workspaces(userDir)));
    return readChangedDatabase(file.path, state, (db) => readCursor(db, state, eventsOf, spaces));
  },
};
