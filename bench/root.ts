// Where the bench finds the built exporter and the test fixtures: from the package's folder.

import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/files/package-root.js';

/** The exporter as `npm run build` leaves it, or another build to compare (`BENCH_MAIN`). */
export const MAIN = process.env.BENCH_MAIN ?? join(PACKAGE_ROOT, 'dist', 'main.js');
export const FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures');
