// Crush's schema, for the bench's corpus and the tests' stores: Crush creates it with its goose
// migrations (copied into test/fixtures/crush-migrations), the `Up` part of each, in order.

import type Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const MIGRATIONS = fileURLToPath(new URL('../../test/fixtures/crush-migrations/', import.meta.url));

export function crushSchema(db: Database.Database): void {
  for (const f of readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()) {
    db.exec(readFileSync(join(MIGRATIONS, f), 'utf8').split('-- +goose Down')[0]!.replaceAll(/^-- \+goose .*$/gm, ''));
  }
}
