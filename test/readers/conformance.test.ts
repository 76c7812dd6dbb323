// The conformance suite run on every root test/readers/harnesses.ts gives each registered harness.

import { join } from 'node:path';
import { FIXTURES } from '../helpers/run.js';
import { READERS } from '../helpers/readers.js';
import { HARNESSES } from '../../src/collectors/registry.js';
import type { HarnessId } from '../../src/session/types.js';
import { describe, expect, it } from 'vitest';
import { readerConformance } from './conformance.js';
import { HARNESS_FIXTURES } from './harnesses.js';

for (const [id, { conformance }] of Object.entries(HARNESS_FIXTURES)) {
  for (const { root, opts } of conformance) readerConformance(READERS[id as HarnessId], root, opts);
}

describe('registry', () => {
  it('runs the conformance suite for every registered reader, on at least one root', () => {
    expect(Object.keys(HARNESS_FIXTURES).sort()).toEqual(Object.keys(HARNESSES).sort());
    for (const [id, { conformance }] of Object.entries(HARNESS_FIXTURES))
      expect(conformance.length, id).toBeGreaterThan(0);
  });

  // What the registry knows before a reader is loaded (its `where.ts`) is what the reader says once loaded.
  it.each(Object.entries(HARNESSES))('%s: where it looks is where its reader looks', (id, where) => {
    const reader = READERS[id as keyof typeof READERS];
    const env = {
      CODEX_HOME: '/x/codex',
      XDG_DATA_HOME: '/x/data',
      OPENCODE_DB: 'o.db',
      KILO_DB: 'k.db',
      CLAUDE_CONFIG_DIR: '/x/claude',
    };
    for (const home of [
      join(FIXTURES, 'home'),
      join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite'),
      join(FIXTURES, 'homes/vscode-extensions-and-clis'),
      join(FIXTURES, 'homes/editor-stores-and-clis'),
    ]) {
      const roots = where.defaultRoots(env, home);
      expect(reader.defaultRoots(env, home)).toEqual(roots);
      for (const root of [...roots, ...reader.defaultRoots({}, home)]) {
        expect(reader.watchPaths(root)).toEqual(where.watchPaths(root));
        expect(reader.watchFiles?.(root)).toEqual(where.watchFiles?.(root));
      }
    }
    expect([
      reader.harness,
      reader.facts,
      reader.sessionOfOpenFile?.('/s/rollout-2026-01-01T00-00-00-0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl'),
    ]).toEqual([
      id,
      where.facts,
      where.sessionOfOpenFile?.('/s/rollout-2026-01-01T00-00-00-0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl'),
    ]);
  });
});
