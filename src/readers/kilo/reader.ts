// Kilo Code's CLI is a fork of OpenCode that keeps the same database schema under its own name:
// `~/.local/share/kilo/kilo.db` (or `kilo-<channel>.db`, or KILO_DB).

import { openCodeFamily } from '../opencode/reader.js';

export const kilo = openCodeFamily({ harness: 'kilo', app: 'kilo', dbEnv: 'KILO_DB' });
