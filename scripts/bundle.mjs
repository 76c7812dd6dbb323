// Bundles the entry point (dist/main.js, over the one tsc wrote) for a faster start: Node loads
// each module at a cost of its own (about half a millisecond here), and `serve` loaded about 100.
// Split where a module is imported on demand (a command's own modules, a harness's reader once its
// folder is found), so that what a start does not need is still not loaded. The two thread scripts
// (the read threads', the bcrypt thread's) are entry points too, over tsc's, sharing the chunks: the
// package ships these, the chunks and the price table (files/package-root.ts, BUILD), not the
// modules tsc built (the tests and the bench use those). The packages stay outside (installed
// beside it).

import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// Chunks are named by their content's hash: those of an earlier build would stay, and be packed.
rmSync(join(root, 'dist', 'chunks'), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts', 'src/collectors/read-worker.ts', 'src/http/bcrypt-worker.ts'],
  outdir: 'dist',
  outbase: 'src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  allowOverwrite: true,
  logLevel: 'warning',
});

// The number formats the page shares with the terminal's viewers (src/view/format.ts, which imports
// nothing), as a module of its own the page imports (/format.js).
await build({
  absWorkingDir: root,
  entryPoints: ['src/view/format.ts'],
  outfile: 'dist/web/format.js',
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  logLevel: 'warning',
});
