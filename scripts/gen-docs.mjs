// Writes docs/metrics.md, config.example.json and the configuration table of docs/configuration.md
// from the catalog and the configuration schema (`npm run docs`, after the build). Tests fail when
// any of them is stale.

import { readFileSync, writeFileSync } from 'node:fs';
import { configTable, exampleConfigJson, metricsDoc } from '../dist/docs.js';

const root = new URL('../', import.meta.url);
writeFileSync(new URL('docs/metrics.md', root), metricsDoc());
writeFileSync(new URL('config.example.json', root), exampleConfigJson());
const doc = new URL('docs/configuration.md', root);
let text = readFileSync(doc, 'utf8');
const section = (name, body) => (t) =>
  t.replace(new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`), `$1\n${body}\n$2`);
text = section('config', configTable())(text);
writeFileSync(doc, text);
