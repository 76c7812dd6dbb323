// The real CLIs' captures (test/fixtures/captures/<harness>/<kind>/) a reader finds sessions in:
// tests that hold for every registered reader start from them.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Reader, SessionFile } from '../../src/readers/reader.js';
import { FIXTURES } from './run.js';

/** Capture homes under which a reader finds session files (through its default roots), with the files. */
export function capturesOf(reader: Reader<unknown>): { home: string; files: SessionFile[] }[] {
  const out: { home: string; files: SessionFile[] }[] = [];
  const base = join(FIXTURES, 'captures');
  for (const harness of readdirSync(base)) {
    for (const kind of readdirSync(join(base, harness))) {
      const home = join(base, harness, kind);
      if (!statSync(home).isDirectory()) continue;
      const files = reader.defaultRoots({}, home).flatMap((r) => (existsSync(r) ? reader.listFiles(r) : []));
      if (files.length > 0) out.push({ home, files });
    }
  }
  return out;
}
