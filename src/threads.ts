// Where a worker thread's script is: beside the module that starts it. Node runs no TypeScript, so
// from the sources (the tests) threads run the built copy under dist/.

import { fileURLToPath } from 'node:url';

/** The path of `relative` (`./x-worker.js`) beside the module at `moduleUrl` (its import.meta.url). */
export function threadScript(relative: string, moduleUrl: string): string {
  const path = fileURLToPath(new URL(relative, moduleUrl));
  return moduleUrl.endsWith('.ts') ? path.replace(/\/src\/(?!.*\/src\/)/, '/dist/') : path;
}
