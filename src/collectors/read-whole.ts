// A file read from its start by a reader that reports to an event log instead of the store: what
// a read thread does with each file it is handed (read-worker.ts).

import type { LineReader, SessionFile } from '../readers/reader.js';
import { readLines, type ReadResult } from '../readers/lines.js';
import { EventLog, type Log } from './event-log.js';

/** A file read whole: its events, the reader's state after them, and how far lines were read. */
export interface FileRead {
  log: Log;
  /** The reader's state, as JSON (as it is committed). */
  state: string;
  result: ReadResult;
}

/**
 * `keys`: the dedupe keys seen in the files read before for the same collector; `usageOnly`: a
 * report's read (EventLog).
 */
export function readWhole<S>(
  reader: LineReader<S>,
  file: SessionFile,
  keys: Set<string>,
  usageOnly: boolean,
): FileRead {
  const state = reader.initialState(file);
  const log = new EventLog(() => reader.sessionOf?.(file, state) ?? file.sessionId, keys, undefined, usageOnly);
  const result = readLines(file.path, 0, (line, at) => {
    log.line();
    try {
      reader.readLine(line, state, file, log.events);
    } catch (e) {
      log.readerError(at, String(e));
    }
  });
  return { log: log.log, state: JSON.stringify(state), result };
}
