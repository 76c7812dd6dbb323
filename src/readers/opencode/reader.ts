// OpenCode and its fork Kilo: sessions in a SQLite database in the data folder (`opencode.db`,
// `opencode-<channel>.db`; Kilo: `kilo.db`, `kilo-<channel>.db`), or a database named by
// OPENCODE_DB / KILO_DB. The data folder is `$XDG_DATA_HOME/<app>`, else `~/.local/share/<app>`,
// on every OS. Before 1.2 (Kilo: 7.0.26) they were JSON files under `<data>/storage`, read as one
// more store after the databases, which are preferred for the sessions 1.2 copied into them.
// Credentials (`auth.json`) and everything else there are never opened.

import { basename, dirname, join, sep } from 'node:path';
import { isDirectory, isFile } from '../../files/dir.js';
import type { SessionFile, StoreReader } from '../reader.js';
import { configuredServers, upToRepository } from '../mcp.js';
import { readChangedDatabase, readDatabase } from '../sqlite.js';
import { readDatabaseRows, sessionsIn } from './database.js';
import { type DbState } from './records.js';
import { readStorage } from './json-storage.js';
import { databasesOf, OPENCODE, openCodeWhere, type Family } from './where.js';

// The JSON storage's folder, listed as one store (a database is the other kind).
const STORAGE = 'storage';

export function openCodeFamily(family: Family): StoreReader<DbState> {
  const { app } = family;
  const databases = databasesOf(app);
  return {
    ...openCodeWhere(family),
    kind: 'store',
    // Databases first: of a session in both, the database's records are counted.
    listFiles: (root) => [
      ...databases(root).map((path): SessionFile => ({ path, sessionId: basename(path) })),
      ...(!isFile(root) && isDirectory(join(root, STORAGE, 'session'))
        ? [{ path: join(root, STORAGE), sessionId: STORAGE }]
        : []),
    ],
    initialState: () => ({ since: 0, live: {} }),
    readStore(file, state, eventsOf) {
      const servers = mcpServers(dirname(file.path), app);
      if (isDirectory(file.path)) {
        const inDatabase = (ids: string[]) =>
          databases(dirname(file.path)).flatMap((db) => readDatabase(db, (d) => sessionsIn(d, ids)));
        return readStorage(file.path, state, eventsOf, inDatabase, servers);
      }
      return readChangedDatabase(file.path, state, (db) => readDatabaseRows(db, state, eventsOf, servers));
    },
  };
}

const CONFIGS = ['opencode.json', 'opencode.jsonc'];

/**
 * The MCP server names (`mcp` keys) of the configs that apply to a session's folder: the global
 * one (`~/.config/<app>/`, found next to a data folder at `~/.local/share/<app>`) and the project's,
 * from the folder up to its repository's root. Names only; a server set by OPENCODE_CONFIG in the
 * agent's own shell cannot be seen from here.
 */
function mcpServers(dataDir: string, app: string): (directory: string | null) => readonly string[] {
  const share = join('.local', 'share', app);
  const home = dataDir.endsWith(`${sep}${share}`) ? dataDir.slice(0, -share.length - 1) : undefined;
  const read = (dir: string) => CONFIGS.flatMap((f) => configuredServers(join(dir, f), 'mcp'));
  // Read when a tool name needs it, not on every scan of an unchanged store.
  let global: readonly string[] | undefined;
  const globalServers = () => (global ??= home ? read(join(home, '.config', app)) : []);
  const byFolder = new Map<string, readonly string[]>();
  return (directory) => {
    if (!directory) return globalServers();
    let names = byFolder.get(directory);
    if (!names) byFolder.set(directory, (names = [...globalServers(), ...upToRepository(directory).flatMap(read)]));
    return names;
  };
}

export const opencode = openCodeFamily(OPENCODE);
