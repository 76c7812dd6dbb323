// One temporary folder per test run, removed when the run ends: every folder a test makes in the
// temp folder (`tempDir`, `mkdtempSync(join(tmpdir(), …))`) is made inside it, since os.tmpdir()
// follows TMPDIR, which the test workers inherit from here. Without it each run left its folders
// behind (an npm install of the package among them, 87 MB), until the disk was full.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const saved = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'cae-run-'));
  process.env.TMPDIR = root;
  return () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
