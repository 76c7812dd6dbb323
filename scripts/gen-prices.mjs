// Writes the price table the exporter bundles: the model prices of @pydantic/genai-prices (MIT,
// maintained by Pydantic), reduced to what pricing needs (model matching, token prices, context
// windows). Run by `npm run build`; the library itself is not loaded at run time (it costs 20 MB
// of memory), src/pricing/prices.ts applies the table the same way (a test checks they agree).

import { waitForUpdate } from '@pydantic/genai-prices';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// The package does not export its package.json; it sits one folder above its entry point.
const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));

const providers = (await waitForUpdate()).map((p) => ({
  id: p.id,
  model_match: p.model_match,
  fallback_model_providers: p.fallback_model_providers,
  models: p.models.map((m) => ({ id: m.id, match: m.match, context_window: m.context_window, prices: m.prices })),
}));
const table = `${JSON.stringify({ source: 'genai-prices', version, providers })}\n`;
// Into the build (where the sources under the tests read it too), or the folders given.
for (const dir of process.argv.length > 2 ? process.argv.slice(2) : ['dist/pricing']) {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'genai-prices.json'), table);
}
