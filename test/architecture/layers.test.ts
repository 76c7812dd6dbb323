// The dependency rule: layers only point down, and no module imports itself back. docs/architecture.md
// draws the same layers.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, forbiddenImports, importGraph, reachable, type ImportGraph } from './imports.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** What each layer (a folder of src/, or a file at its top) may import besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  // The base: the words, the reader contract and the session record; files, text for a terminal,
  // logging, threads, V8's heap and compiler, the clock.
  files: [],
  terminal: [],
  log: ['terminal'],
  threads: ['files'],
  heap: [],
  jit: [],
  clock: [],
  version: ['files'],
  session: ['files'],
  catalog: ['session'],
  // What the store is made of and what feeds it, each knowing only the base.
  pricing: ['session', 'files'],
  state: ['files'],
  readers: ['session', 'files'],
  store: ['session', 'files', 'catalog', 'pricing', 'state'],
  process: ['session', 'files', 'log', 'store'],
  collectors: ['readers', 'store', 'state', 'session', 'files', 'log', 'threads'],
  config: ['session', 'log'],
  // The hook command (which loads nothing but its spool and the configuration schema) and the spool's reader.
  hooks: ['session', 'config', 'files'],
  // What is shown: the views of the store, and the outputs that serialize it.
  view: ['store', 'session', 'files', 'terminal'],
  // The reports of the ledger and the sessions (`report`), in the viewers' money format.
  report: ['state', 'store', 'session', 'view', 'terminal'],
  metrics: ['catalog', 'store', 'session', 'state', 'collectors', 'config', 'view', 'log', 'threads', 'files'],
  // The HTTP server: Host checks, basic auth (bcrypt on a thread), TLS, deadlines; it serves what metrics/ and view/ render.
  http: ['metrics', 'view', 'config', 'log', 'threads', 'files'],
  docs: ['catalog', 'config'],
  // The wiring and the commands.
  exporter: [
    'clock',
    'collectors',
    'config',
    'files',
    'hooks',
    'http',
    'log',
    'metrics',
    'pricing',
    'process',
    'state',
    'store',
    'version',
    'view',
  ],
  cli: [
    'exporter',
    'collectors',
    'config',
    'files',
    'heap',
    'hooks',
    'log',
    'metrics',
    'pricing',
    'process',
    'view',
    'readers',
    'report',
    'session',
    'state',
    'store',
    'version',
  ],
  main: ['cli', 'config', 'heap', 'hooks', 'jit', 'version'],
};

/** The modules something outside src/ starts (the binary; the generator of the reference docs, `npm run docs`). */
const ENTRIES = ['main.ts', 'docs.ts'];

describe('the dependency rule', () => {
  const graph = importGraph(SRC);

  it('reads the imports it checks (a module with no imports found would pass every rule)', () => {
    expect(graph.get('store/store.ts')).toContain('session/types.ts');
    expect(graph.get('exporter.ts')).toContain('http/server.ts'); // a dynamic import()
    expect(graph.size).toBeGreaterThan(100);
  });

  it('every layer imports only the layers below it', () => {
    expect(forbiddenImports(graph, LAYERS)).toEqual([]);
  });

  it('no module imports itself back, through any path', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('src/ holds only the product: every module is reached from the binary or the docs generator', () => {
    const used = reachable(graph, ENTRIES);
    expect([...graph.keys()].filter((m) => !used.has(m))).toEqual([]);
  });

  it('finds a forbidden import and a cycle where there is one', () => {
    const bad: ImportGraph = new Map([
      ['session/types.ts', new Set(['metrics/snapshot.ts'])],
      ['metrics/snapshot.ts', new Set(['store/live.ts'])],
      ['store/live.ts', new Set(['session/types.ts'])],
    ]);
    expect(forbiddenImports(bad, LAYERS)).toEqual([
      'session/types.ts → metrics/snapshot.ts: session may not import metrics',
    ]);
    expect(cycles(bad)).toEqual([['metrics/snapshot.ts', 'session/types.ts', 'store/live.ts']]);
  });
});
