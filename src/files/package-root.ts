// The package's own folder (package.json, web/), found from this module upwards: the same from
// dist/ (installed or built, bundled or not), from source under the tests, and from the bench's
// build of the source (dist-bench/src/), whose depth differs.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * The built modules (`npm run build`): what threads run and the price table, found here whatever
 * module asks, a chunk of the bundled entry point (dist/chunks/), the sources under the tests or
 * the bench's build of them.
 */
export const BUILD = join(PACKAGE_ROOT, 'dist');
