// Hooks appending at once while the exporter reads, across many of the spool's rotations: every
// event read exactly once. The writers are processes of their own, as hooks are, running the
// hook's own code (the build's) with a spool moved aside every couple of kilobytes.

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILD } from '../../src/files/package-root.js';
import { SpoolReader } from '../../src/hooks/source.js';
import { tempDir } from '../helpers/run.js';

const WRITERS = 12;
const EVENTS = 150;
const ROUNDS = 3;
const MAX_BYTES = 2048;

/** A hook process appending `EVENTS` events of its own (sessions `<round>-<writer>-<n>`). */
function writer(dir: string, name: string): Promise<number | null> {
  const script = `
    import { appendToSpool } from ${JSON.stringify(pathToFileURL(join(BUILD, 'hooks/append.js')).href)};
    for (let n = 0; n < ${EVENTS}; n++) {
      const line = JSON.stringify({ harness: 'codex', session: '${name}-' + n, event: 'PreToolUse', phase: 'tool', at: n }) + '\\n';
      appendToSpool(${JSON.stringify(dir)}, line, ${MAX_BYTES});
    }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.on('exit', resolve));
}

describe('the spool under many hooks at once', () => {
  it('reads every event exactly once, across rotations, whatever the interleaving of writers and reader', async () => {
    const dir = tempDir();
    const reader = new SpoolReader(dir);
    const seen = new Map<string, number>();
    const read = () => reader.read((r) => seen.set(r.session, (seen.get(r.session) ?? 0) + 1));
    for (let round = 0; round < ROUNDS; round++) {
      let running = WRITERS;
      const exits = Promise.all(
        Array.from({ length: WRITERS }, (_, w) => writer(dir, `${round}-${w}`).finally(() => running--)),
      );
      // The reader reads as often as it can while they write.
      while (running > 0) {
        read();
        await new Promise((r) => setImmediate(r));
      }
      expect(await exits).toEqual(Array(WRITERS).fill(0));
      read();
    }
    const twice = [...seen].filter(([, n]) => n !== 1);
    const missing = ROUNDS * WRITERS * EVENTS - seen.size;
    expect({ missing, twice }).toEqual({ missing: 0, twice: [] });
    // Every spool moved aside was read and put away, the last one kept (the spool itself is gone when the last write moved it).
    expect(readdirSync(dir).filter((n) => n !== 'hooks.jsonl')).toEqual(['hooks.jsonl.0']);
  }, 120_000);
});
