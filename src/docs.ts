// Reference documentation generated from the code: the metric catalog (docs/metrics.md) and the
// configuration schema (config.example.json and docs/configuration.md's table).

import { configKeys, exampleConfig } from './config/load.js';
import { catalog, exposedName } from './catalog.js';

export function metricsTable(): string {
  const rows = Object.values(catalog).map(
    (m) => `| \`${exposedName(m)}\` | ${m.kind} | ${m.labels.map((l) => `\`${l}\``).join(', ')} | ${m.help} |`,
  );
  return ['| Metric | Type | Labels | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function metricsDoc(): string {
  return `# Metrics

Generated from \`src/catalog.ts\` by \`npm run docs\`; a test fails when this file is stale.
The names are the same on the Prometheus endpoint and over OTLP (into Prometheus). Counters survive
restarts and deleted transcripts (they never go backwards); per-session series exist only for
sessions that are not idle, and vanish when a session goes idle.

${metricsTable()}
`;
}

export function configTable(): string {
  const rows = configKeys().map((k) => {
    const where = [k.env ? `\`${k.env}\`` : '', k.arg ? `\`--${k.arg}\`` : ''].filter(Boolean).join('<br>');
    return `| \`${k.key}\` | \`${JSON.stringify(k.default)}\` | ${where || '(file only)'} | ${k.doc} |`;
  });
  return ['| Key | Default | Environment / flag | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function exampleConfigJson(): string {
  return `${JSON.stringify(exampleConfig(), null, 2)}\n`;
}
