// GitHub Copilot Chat in VS Code (and Insiders, VSCodium, Code - OSS): one reader of a user
// folder's three stores (where.ts). The OTel database first (traces.ts: each call's tokens, where
// the person turned it on), then each session's journal (journal.ts: prompts, turns, tools, waits,
// compactions, the model, and a turn's output tokens where the database has none of its calls),
// then the extension's transcripts (transcript.ts: which tool calls failed). The session index in
// each workspace's `state.vscdb` is not read: the journal says all it does.

import { dirname, join } from 'node:path';
import { isFile } from '../../files/dir.js';
import type { SessionFile, StoreReader } from '../reader.js';
import { readChangedDatabase } from '../sqlite.js';
import { readSession, replay } from './journal.js';
import { cwdOf, journalFiles, transcriptFiles } from './paths.js';
import { initialTraces, readTraces, type TracesState } from './traces.js';
import { readTranscript } from './transcript.js';
import { copilotVscode as where, TRACES, TRANSCRIPTS } from './where.js';

/** A journal's and a transcript's state: nothing (each record counts once by its own id). */
type FileState = Record<string, never>;

const isTranscript = (file: SessionFile) => dirname(file.path).endsWith(TRANSCRIPTS);

export const copilotVscode: StoreReader<TracesState | FileState> = {
  ...where,
  kind: 'store',
  listFiles: (root) => {
    const traces = join(root, TRACES);
    return [
      ...(isFile(traces) ? [{ path: traces, sessionId: 'agent-traces' }] : []),
      ...journalFiles(root),
      ...transcriptFiles(root),
    ];
  },
  initialState: (file) => (file.document ? {} : initialTraces()),
  readStore(file, state, eventsOf) {
    // The database is the only file read here (the others are documents).
    const traces = state as TracesState;
    const userDir = dirname(dirname(dirname(file.path)));
    return readChangedDatabase(file.path, traces, (db) => {
      readTraces(db, traces, new Map(journalFiles(userDir).map((j) => [j.sessionId, j.path])), eventsOf);
    });
  },
  readDocument(doc, _state, file, ev) {
    if (isTranscript(file)) return readTranscript(doc, file.sessionId, ev);
    const session = replay(doc, file.path.endsWith('.jsonl'), ev);
    if (session) readSession(session, file.sessionId, ev, cwdOf(file.path));
  },
};
