// Crush's schema, for the bench's corpus and the tests' stores: Crush creates it with its goose
// migrations (copied into test/fixtures/crush-migrations), the `Up` part of each, in order.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './root.js';

const MIGRATIONS = join(FIXTURES, 'crush-migrations');

/** `db`: a connection of the exporter's engine (src/files/sqlite.ts). */
export function crushSchema(db: { exec(sql: string): unknown }): void {
  for (const f of readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    db.exec(
      readFileSync(join(MIGRATIONS, f), 'utf8')
        .split('-- +goose Down')[0]!
        .replaceAll(/^-- \+goose .*$/gm, ''),
    );
  }
}
