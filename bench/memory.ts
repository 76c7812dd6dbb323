// What a `serve` keeps resident once settled: over a home of many live sessions, and after its first
// read of the corpus (an empty state database), beside a plain Node process that only listens (what
// Node itself costs) and one that also opened a database with SQLite's binding. Resident memory as
// the kernel counts it, split into what is mapped from files (the Node binary and its libraries,
// shared with every Node process) and the rest (V8's heaps, buffers, SQLite's and the allocator's
// memory).

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { listeningNode, residentMb, sleep, startExporter } from './exporter.js';
import { PACKAGE_ROOT } from '../src/files/package-root.js';

export interface Resident {
  rss: number;
  file: number;
  anon: number;
  /** V8's heap in use as the exporter last sampled it (nodejs_heap_size_used_bytes), MB. */
  heapUsed?: number;
}

export interface MemoryFigures {
  live: Resident;
  firstRead: Resident;
  node: Resident;
  /**
   * The same with better-sqlite3 loaded and a database opened, as the state database is where Node
   * has no SQLite of its own; absent where better-sqlite3 is not installed for this Node.js.
   */
  nodeSqlite?: Resident;
  /** The state database the first read left (a warm restart starts from it). */
  stateDir: string;
}

/** The exporter over `home`, every page asked for once, `settleSeconds` later. */
async function settled(stateDir: string, home: string, settleSeconds: number): Promise<Resident> {
  const exporter = await startExporter(stateDir, home);
  try {
    for (const path of ['/metrics', '/api/v1/sessions', '/api/v1/summary'])
      await (await fetch(exporter.url.replace(/\/metrics$/, path))).arrayBuffer();
    await sleep(settleSeconds * 1000);
    const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(await (await fetch(exporter.url)).text());
    return { ...residentMb(exporter.pid), ...(heap ? { heapUsed: Number(heap[1]) / 1024 / 1024 } : {}) };
  } finally {
    await exporter.stop();
  }
}

// SQLite's binding as the state database uses it: its calls into V8 touch megabytes more of the Node binary.
const WITH_SQLITE = `require(${JSON.stringify(join(PACKAGE_ROOT, 'node_modules', 'better-sqlite3'))})(':memory:').prepare('SELECT 1').get();`;

export async function memoryFigures(
  work: string,
  liveHome: string,
  corpusHome: string,
  settleSeconds: number,
): Promise<MemoryFigures> {
  const node = listeningNode();
  // Tried in a child first: on Node 24 and 26 it is absent, or built for another Node.js.
  const nodeSqlite =
    spawnSync(process.execPath, ['-e', WITH_SQLITE], { stdio: 'ignore' }).status === 0
      ? listeningNode(WITH_SQLITE)
      : undefined;
  try {
    const stateDir = join(work, 'memory-first-read');
    // Side by side: what is measured is memory, and the settling is most of the time.
    const [live, firstRead] = await Promise.all([
      settled(join(work, 'memory-live'), liveHome, settleSeconds),
      settled(stateDir, corpusHome, settleSeconds),
    ]);
    return {
      live,
      firstRead,
      node: residentMb(node.pid!),
      ...(nodeSqlite ? { nodeSqlite: residentMb(nodeSqlite.pid!) } : {}),
      stateDir,
    };
  } finally {
    node.kill('SIGTERM');
    nodeSqlite?.kill('SIGTERM');
  }
}
