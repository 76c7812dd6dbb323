// Worker threads: where a thread's script is (beside the module that starts it; Node runs no
// TypeScript, so from the sources, the tests, threads run the built copy under dist/), and the
// thread itself, whose module is loaded with the first one started: `serve` starts threads only
// for a first read or a password, and every module loaded is start-up time.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Worker, WorkerOptions } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** The path of `relative` (`./x-worker.js`) beside the module at `moduleUrl` (its import.meta.url). */
export function threadScript(relative: string, moduleUrl: string): string {
  const path = fileURLToPath(new URL(relative, moduleUrl));
  return moduleUrl.endsWith('.ts') ? path.replace(/\/src\/(?!.*\/src\/)/, '/dist/') : path;
}

/** A thread running `script` (a path from `threadScript`). */
export function startThread(script: string, options?: WorkerOptions): Worker {
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  return new threads.Worker(script, options);
}
