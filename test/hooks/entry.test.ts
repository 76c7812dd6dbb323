// The hook command runs on every event of every agent: starting the binary for it must load the
// hook's few modules and none of the exporter's heavy ones.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, reachable } from '../architecture/imports.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
// OpenTelemetry's SDK, and SQLite (through files/sqlite.ts: Node's own or better-sqlite3).
const HEAVY_PACKAGES =
  /from\s+['"](?:@opentelemetry\/[^'"]+|better-sqlite3|node:sqlite|(?:\.\.?\/)+files\/sqlite\.js)['"]/;

function loadedWith(entry: string): string[] {
  return [...reachable(importGraph(SRC, { dynamic: false }), [entry])].sort();
}

describe('the hook entry', () => {
  it('loads only the hook, its spool, the safe open, its stdin reader and the configuration schema (no reader, store, state database, watcher or OTel SDK)', () => {
    const loaded = loadedWith('main.ts');
    expect(loaded).toEqual([
      'config/schema.ts',
      'files/open.ts',
      'files/stdin.ts',
      'hooks/append.ts',
      'hooks/command.ts',
      'hooks/spool.ts',
      'main.ts',
      'session/vocabulary.ts',
    ]);
    for (const m of loaded) expect(readFileSync(`${SRC}${m}`, 'utf8')).not.toMatch(HEAVY_PACKAGES);
  });

  it('sees what a module loads (the check would pass on a graph that found nothing)', () => {
    expect(loadedWith('exporter.ts')).toContain('state/db.ts');
    expect(readFileSync(`${SRC}state/db.ts`, 'utf8')).toMatch(HEAVY_PACKAGES);
  });
});
