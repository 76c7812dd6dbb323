// Every test file's setup: after each test, one turn of the event loop. A worker runs a file's
// tests one after the other through promises alone, so a file of synchronous tests (the fuzz
// suite: a minute on a busy machine) never lets the worker read vitest's answers to its progress
// reports until the file ends; past 60 s those calls time out, an unhandled error that fails the
// run with every test passed.

import { afterEach } from 'vitest';

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
