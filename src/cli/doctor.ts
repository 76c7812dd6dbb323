// `doctor`: what a user pastes into a bug report. Per harness, the roots it looks in and what each
// holds (the session files the reader's listing finds: folder listings only, no file is read),
// what could not be listed and why; the Node and SQLite that run; whether the process table and
// hooks are in use. Paths of roots and of the state folder are printed; no session file's path
// (a folder name under a root may be a project's path): below a root, only counts and error codes.

import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Config } from '../config/load.js';
import { HARNESSES, rootsOf } from '../collectors/registry.js';
import { listingFailures } from '../files/dir.js';
import { engine, openDatabase } from '../files/sqlite.js';
import type { Reader } from '../readers/reader.js';
import { harnessOf } from '../process/harnesses.js';
import { platformTable, withoutDemos } from '../process/table.js';

export interface RootReport {
  path: string;
  /** `missing`: not there (the harness is not installed, or keeps its files elsewhere). */
  state: 'present' | 'missing' | 'unreadable';
  /** The session files (or stores) the reader's listing finds under it. */
  files?: number;
  /** Why the root could not be read (an errno code), or the codes of the folders under it that could not be listed, with how many. */
  errors?: Record<string, number>;
}

export interface HarnessReport {
  harness: string;
  enabled: boolean;
  /** Roots set by `collectors.<name>.roots`, not the harness's defaults. */
  configured: boolean;
  files: number;
  roots: RootReport[];
}

export interface DoctorReport {
  version: string;
  node: string;
  platform: string;
  sqlite: { engine: string; engineVersion: string; sqlite: string } | { error: string };
  stateDir: string;
  stateDb: boolean;
  processes: { enabled: boolean; table: 'proc' | 'ps' | 'none'; agents?: number };
  hooks: { spool: string; present: boolean; lastEventAt?: string };
  harnesses: HarnessReport[];
}

export interface DoctorFacts {
  version: string;
  /** The hook spool's path (its mtime is the last event a hook appended). */
  spool: string;
  env: NodeJS.ProcessEnv;
  home: string;
}

const stat = (path: string): Stats | undefined => {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * The SQLite engine the state database and the SQLite readers run on (files/sqlite.ts: Node's own
 * where it has one, else better-sqlite3), its version (Node's for node:sqlite), and its SQLite.
 */
function sqliteEngine(): DoctorReport['sqlite'] {
  try {
    const version =
      engine === 'node:sqlite'
        ? process.versions.node
        : (createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string }).version;
    const db = openDatabase(':memory:');
    try {
      const v = db.prepare('select sqlite_version() as v').pluck().get() as string;
      return { engine, engineVersion: version, sqlite: v };
    } finally {
      db.close();
    }
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0]! };
  }
}

async function root(path: string, load: () => Promise<Reader<unknown>>): Promise<RootReport> {
  let st: Stats | undefined;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    return { path, state: 'unreadable', errors: { [(e as NodeJS.ErrnoException).code ?? String(e)]: 1 } };
  }
  if (!st) return { path, state: 'missing' };
  if (!st.isDirectory() && !st.isFile()) return { path, state: 'unreadable', errors: { ENOTREG: 1 } };
  // A folder whose entries may not be read, or reached (a listing of what is under it tells only of those).
  try {
    accessSync(path, st.isDirectory() ? constants.R_OK | constants.X_OK : constants.R_OK);
  } catch (e) {
    return { path, state: 'unreadable', errors: { [(e as NodeJS.ErrnoException).code ?? String(e)]: 1 } };
  }
  const out: RootReport = { path, state: 'present' };
  // The reader (its listing) is loaded only where a root is there, as the collector loads it.
  const reader = await load();
  const { value, failures } = listingFailures(() => reader.listFiles(path));
  out.files = value.length;
  const errors: Record<string, number> = {};
  for (const code of failures.values()) errors[code] = (errors[code] ?? 0) + 1;
  if (failures.size > 0) out.errors = errors;
  return out;
}

export async function doctor(config: Config, facts: DoctorFacts): Promise<DoctorReport> {
  const harnesses: HarnessReport[] = [];
  for (const [name, harness] of Object.entries(HARNESSES)) {
    const section = config.collectors[name]!;
    const { roots, configured } = rootsOf(harness, section.roots, facts.env, facts.home);
    const found = section.enabled
      ? await Promise.all(roots.map((r) => root(r, () => harness.load())))
      : roots.map((path): RootReport => ({ path, state: stat(path) ? 'present' : 'missing' }));
    harnesses.push({
      harness: name,
      enabled: section.enabled,
      configured,
      files: found.reduce((n, r) => n + (r.files ?? 0), 0),
      roots: found,
    });
  }
  let processes: DoctorReport['processes'] = { enabled: false, table: 'none' };
  if (config.processes.enabled) {
    const table = platformTable(config.processes.procRoot);
    processes = table
      ? {
          enabled: true,
          table: table.linuxTicks ? 'proc' : 'ps',
          agents: withoutDemos(table)
            .list()
            .filter((p) => harnessOf(p.argv)).length,
        }
      : { enabled: true, table: 'none' };
  }
  const spool = stat(facts.spool);
  return {
    version: facts.version,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    sqlite: sqliteEngine(),
    stateDir: config.stateDir,
    stateDb: stat(join(config.stateDir, 'state.db')) !== undefined,
    processes,
    hooks: {
      spool: facts.spool,
      present: spool !== undefined,
      ...(spool ? { lastEventAt: spool.mtime.toISOString() } : {}),
    },
    harnesses,
  };
}

const errorText = (errors: Record<string, number>) =>
  Object.entries(errors)
    .map(([code, n]) => (n > 1 ? `${code} ×${n}` : code))
    .join(', ');

function rootLine(r: RootReport): string {
  const files = r.files === undefined ? '' : `${r.files} file${r.files === 1 ? '' : 's'}`;
  if (!r.errors) return files;
  return r.state === 'unreadable'
    ? `cannot be read: ${errorText(r.errors)}`
    : `${files}; folders under it that cannot be read: ${errorText(r.errors)}`;
}

/** The report as text: a few lines of what runs, then each harness and its roots. */
export function doctorText(r: DoctorReport): string {
  const sqlite =
    'error' in r.sqlite
      ? `cannot be loaded: ${r.sqlite.error}`
      : `${r.sqlite.engine} ${r.sqlite.engineVersion} (SQLite ${r.sqlite.sqlite})`;
  const processes = !r.processes.enabled
    ? 'off (processes.enabled is false): statuses from session files and hooks alone'
    : r.processes.table === 'none'
      ? 'none on this platform: statuses from session files and hooks alone'
      : `${r.processes.table === 'proc' ? '/proc' : 'ps and lsof'}, ${r.processes.agents} agent process${r.processes.agents === 1 ? '' : 'es'} running now`;
  const hooks = r.hooks.present
    ? `in use: ${r.hooks.spool}, last event ${r.hooks.lastEventAt}`
    : `none received (no ${r.hooks.spool}; \`hooks print HARNESS\` sets them up)`;
  const lines = [
    `coding-agent-exporter ${r.version}`,
    `node        ${r.node} (${r.platform})`,
    `sqlite      ${sqlite}`,
    `state       ${r.stateDir} (${r.stateDb ? 'state.db there' : 'no state.db yet'})`,
    `processes   ${processes}`,
    `hooks       ${hooks}`,
    '',
  ];
  // A harness's roots not there are summed up where there are many (the editors' user dirs): the
  // JSON lists each.
  const notThere = (paths: string[]) =>
    paths.length <= 2 ? paths.join(', ') : `${paths.length} roots; doctor --json lists them`;
  const shown = r.harnesses.flatMap((h) => h.roots.filter((x) => x.state !== 'missing'));
  const width = Math.max(0, ...shown.map((x) => x.path.length));
  for (const h of r.harnesses) {
    const present = h.roots.filter((x) => x.state !== 'missing');
    const missing = h.roots.filter((x) => x.state === 'missing').map((x) => x.path);
    const how = h.configured ? ' (roots configured)' : '';
    if (!h.enabled) lines.push(`${h.harness}: disabled${how}`);
    else if (present.length === 0) lines.push(`${h.harness}: not found${how} (looked in ${notThere(missing)})`);
    else {
      const unreadable = present.filter((x) => x.state === 'unreadable').length;
      const cannot = unreadable === 0 ? '' : `, ${unreadable === 1 ? 'a root' : `${unreadable} roots`} cannot be read`;
      lines.push(`${h.harness}: ${h.files} file${h.files === 1 ? '' : 's'}${cannot}${how}`);
      for (const x of present) lines.push(`  ${x.path.padEnd(width)}  ${rootLine(x)}`);
      if (missing.length > 0) lines.push(`  not there: ${notThere(missing)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
