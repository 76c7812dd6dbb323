// The import graph of src/: which module imports which, read from the source text (static
// imports, `export … from` and dynamic `import()` of relative paths; type-only imports count too,
// since a type couples two layers as much as a value does).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Module (path relative to src/, e.g. `store/store.ts`) → the modules of src/ it imports. */
export type ImportGraph = Map<string, Set<string>>;

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|^import\s+['"](\.[^'"]+)['"]/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.isFile() && e.name.endsWith('.ts') ? [path] : [];
  });
}

/** `dynamic: false`: only what loading a module loads with it (no `import()`, no type-only import). */
export function importGraph(srcDir: string, { dynamic = true } = {}): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sources(srcDir)) {
    const deps = new Set<string>();
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (!dynamic && (m[2] !== undefined || /^(?:import|export)\s+type\s/.test(m[0].trimStart()))) continue;
      const spec = (m[1] ?? m[2] ?? m[3])!;
      deps.add(relative(srcDir, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'));
    }
    graph.set(relative(srcDir, file), deps);
  }
  return graph;
}

/** A value import of a package (type-only imports are erased). */
const PACKAGE_IMPORT = /^import\s+(?!type\s)[^'"]*?from\s*['"]([^.'"][^'"]*)['"]/gm;

function valueImports(srcDir: string, module: string): string[] {
  return [...readFileSync(join(srcDir, module), 'utf8').matchAll(PACKAGE_IMPORT)].map((m) => m[1]!);
}

/** The outside packages a module of src/ imports by value (not `node:` ones). */
export function packagesOf(srcDir: string, module: string): string[] {
  return valueImports(srcDir, module).filter((p) => !p.startsWith('node:'));
}

/** The Node modules (`node:…`) a module of src/ imports by value. */
export function builtinsOf(srcDir: string, module: string): string[] {
  return valueImports(srcDir, module).filter((p) => p.startsWith('node:'));
}

/** Every module loading `from` loads, `from` included. */
export function reachable(graph: ImportGraph, from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...from];
  while (todo.length > 0) {
    const m = todo.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    todo.push(...(graph.get(m) ?? []));
  }
  return seen;
}

/** The layer a module belongs to: its top folder, or its own name for a file at the top. */
export function layerOf(module: string): string {
  const slash = module.indexOf('/');
  return slash === -1 ? module.replace(/\.ts$/, '') : module.slice(0, slash);
}

/** Every import of a module of one layer into a layer it may not use. */
export function forbiddenImports(graph: ImportGraph, allowed: Readonly<Record<string, readonly string[]>>): string[] {
  const out: string[] = [];
  for (const [from, deps] of graph) {
    const layer = layerOf(from);
    const may = allowed[layer];
    for (const to of deps) {
      const target = layerOf(to);
      if (target === layer) continue;
      if (!may) out.push(`${from} → ${to}: layer ${layer} has no rule`);
      else if (!may.includes(target)) out.push(`${from} → ${to}: ${layer} may not import ${target}`);
    }
  }
  return out;
}

/** The import cycles: every strongly connected group of more than one module (Tarjan), or a module importing itself. */
export function cycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v)!.has(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
