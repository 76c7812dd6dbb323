// Worker threads: where a thread's script is (in the build: Node runs no TypeScript, so from the
// sources, the tests, threads run the built copy too), and the thread itself, whose module is
// loaded with the first one started: `serve` starts threads only for a first read or a password,
// and every module loaded is start-up time.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Worker, WorkerOptions } from 'node:worker_threads';
import { BUILD } from './files/package-root.js';

const require = createRequire(import.meta.url);

/** The path of a thread's script in the build (`collectors/read-worker.js`). */
export function threadScript(module: string): string {
  return join(BUILD, module);
}

/** A thread running `script` (a path from `threadScript`). */
export function startThread(script: string, options?: WorkerOptions): Worker {
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  return new threads.Worker(script, options);
}
