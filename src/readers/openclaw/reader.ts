// OpenClaw (formerly clawdbot / moltbot): a personal agent built on pi, with one or more agents
// under its state folder (`$OPENCLAW_STATE_DIR`, else `~/.openclaw`). Each agent's sessions are
// - since 2026.9: in the agent's SQLite database, `agents/<agent>/agent/openclaw-agent.sqlite`
//   (database.ts); the real CLI's databases are in test/fixtures/captures/openclaw;
// - before: one append-only JSONL file per session, `agents/<agent>/sessions/<uuid>.jsonl`, and the
//   copies OpenClaw keeps of a session deleted or reset (`<uuid>.jsonl.deleted.<time>`,
//   `.reset.<time>`, `.full.bak`), which hold tokens the live file no longer does.
// Both hold pi-format events (events.ts). OpenClaw has one reader, and it is a store reader: a
// database is a store, and the JSONL files are read as stores of one session each, from the offset
// their state keeps; a copy read from its start counts nothing twice (entries are deduplicated by
// id and time). Nothing else there is opened: `agents/<agent>/agent/` also holds the providers'
// credentials (`auth-profiles.json`), and the state folder the configuration with its keys.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { isFile, listDir } from '../../files/dir.js';
import type { SessionFile, StoreReader } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { readChangedDatabase, storeChanged } from '../sqlite.js';
import { readLines } from '../lines.js';
import { readTranscripts, type DbState } from './database.js';
import { readEvent } from './events.js';
import { agents, DB, dbOf, openclaw as where } from './where.js';

export interface OpenClawState extends DbState {
  /** A JSONL file: how far its complete lines were read, and the file they were read in. */
  offset?: number;
  ino?: number;
}

/** A session's file and the copies of it OpenClaw keeps; group 1 is the session id. */
const SESSION_FILE = /^(.+)\.jsonl(\.(deleted|reset)\.[^/]+|\.full\.bak)?$/;

function listFiles(root: string): SessionFile[] {
  const files: SessionFile[] = [];
  for (const agent of agents(root)) {
    const db = dbOf(agent.path);
    if (isFile(db)) files.push({ path: db, sessionId: agent.name });
    for (const e of listDir(join(agent.path, 'sessions'))) {
      const id = e.isFile ? SESSION_FILE.exec(e.name)?.[1] : undefined;
      if (id) files.push({ path: e.path, sessionId: id });
    }
  }
  return files;
}

/** The new complete lines of a JSONL session file; false when it had not changed. */
function readJsonl(file: SessionFile, state: OpenClawState, ev: SessionEvents): boolean {
  const { changed, signature } = storeChanged(file.path, state.sig);
  const st = statSync(file.path, { throwIfNoEntry: false });
  if (!changed || !st) return false;
  // Replaced or shrunk: read from the start again (what was counted is not counted again).
  let offset = state.offset ?? 0;
  if (state.ino !== st.ino || st.size < offset) offset = 0;
  const result = readLines(file.path, offset, (line) => readEvent(line, ev));
  for (let i = 0; i < result.longLines; i++) ev.skipped('line_too_long');
  if (result.error) throw result.error;
  Object.assign(state, { offset: result.offset, ino: st.ino, sig: signature });
  return true;
}

export const openclaw: StoreReader<OpenClawState> = {
  ...where,
  kind: 'store',
  listFiles,
  initialState: () => ({ seqs: {} }),
  readStore(file, state, eventsOf) {
    if (file.path.endsWith(DB))
      return readChangedDatabase(file.path, state, (db) => readTranscripts(db, state, eventsOf));
    return readJsonl(file, state, eventsOf(file.sessionId));
  },
};
