// A read thread: claims the files of a backlog that nobody claimed yet, in order, reads each one,
// and posts its events (read-ahead.ts plays them back).

import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { LineReader, SessionFile } from '../readers/reader.js';
import type { HarnessId } from '../session/types.js';
import { READERS } from './registry.js';
import { readWhole } from './read-whole.js';
import { Backlog } from './backlog.js';

export interface ReadTask {
  harness: HarnessId;
  files: SessionFile[];
  /** This thread's claim (`Backlog.thread`). */
  claim: number;
  shared: SharedArrayBuffer;
}

export interface ReadPosted {
  index: number;
  /** The file's `FileRead`, serialized here: cloning it as a message costs twice as long. */
  read: Uint8Array;
}

const { harness, files, claim, shared } = workerData as ReadTask;
const backlog = new Backlog(shared, files.length);
const reader = READERS[harness] as LineReader<unknown>;
// Dedupe keys of the files read so far: a record repeated in a later file is not fresh there.
const keys = new Set<string>();
for (let index = 0; index < files.length; index++) {
  if (backlog.claim(index, claim) !== claim) continue;
  backlog.waitForRoom();
  const read = serialize(readWhole(reader, files[index]!, keys));
  backlog.waiting(read.length);
  const posted: ReadPosted = { index, read };
  parentPort!.postMessage(posted);
}
