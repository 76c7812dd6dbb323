// A read thread: for each backlog it is handed, claims the files nobody claimed yet, in order, reads
// each one, and posts its events (read-ahead.ts plays them back).

import { serialize } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { LineReader, SessionFile } from '../readers/reader.js';
import type { HarnessId } from '../session/types.js';
import { Claims } from './claims.js';
import { HARNESSES } from './registry.js';
import { readWhole } from './read-whole.js';

export interface ReadTask {
  /** Names the backlog in what the thread posts. */
  task: number;
  harness: HarnessId;
  files: SessionFile[];
  /** This thread's mark in the claims. */
  claim: number;
  /** The claims (`Claims`), shared by every thread and the main thread. */
  shared: SharedArrayBuffer;
  /** A report's read: only the events a report sums (EventLog). */
  usageOnly: boolean;
}

export interface ReadPosted {
  task: number;
  index: number;
  /** The file's `FileRead`, serialized here: cloning it as a message costs twice as long. */
  read: Uint8Array;
}

/** The thread claims no more files of the task. */
export interface ThreadDone {
  task: number;
  done: true;
}

// Tasks are read in the order they were posted, each once the one before is done; the harness's
// reader is loaded by the first task of it (the registry loads readers lazily).
let tasks = Promise.resolve();
parentPort!.on('message', (t: ReadTask) => {
  tasks = tasks.then(() => readTask(t));
});

async function readTask({ task, harness, files, claim, shared, usageOnly }: ReadTask): Promise<void> {
  const claims = new Claims(shared, files.length);
  const reader = (await HARNESSES[harness].load()) as LineReader<unknown>;
  // Dedupe keys of the files read so far: a record repeated in a later file is not fresh there.
  const keys = new Set<string>();
  for (let index = 0; index < files.length; index++) {
    if (claims.claim(index, claim) !== claim) continue;
    claims.waitForRoom();
    const read = serialize(readWhole(reader, files[index]!, keys, usageOnly));
    claims.waiting(read.length);
    parentPort!.postMessage({ task, index, read } satisfies ReadPosted);
  }
  parentPort!.postMessage({ task, done: true } satisfies ThreadDone);
}
