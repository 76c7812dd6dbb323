// The catalog obeys the Prometheus and OTel naming rules that keep names identical on both export
// paths (design-anchors §6, §9), and the documentation matches it.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalog, exposedName } from '../src/catalog.js';
import { metricsDoc } from '../src/docs.js';

const defs = Object.values(catalog);
const UNIT_FOR_SUFFIX: Record<string, string> = { _seconds: 's', _bytes: 'By', _ratio: '1' };

describe('metric catalog', () => {
  it.each(defs.map((d) => [d.name, d] as const))('%s is a well-formed name', (_n, d) => {
    // Ours, or the conventional names of a process's own metrics (process_*, nodejs_*).
    expect(d.name).toMatch(/^(coding_agent|process|nodejs)_[a-z0-9]+(_[a-z0-9]+)*$/);
    expect(d.name).not.toMatch(
      /_total$|_(gauge|counter|histogram|count|sum|bucket)$|_(s|ms|sec|b|kb|m|h|d|percent|milliseconds|minutes)$/,
    );
    expect(d.help).toMatch(/^[A-Z].*\.$/);
    for (const l of d.labels) {
      expect(l).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['job', 'instance', 'le', 'quantile', 'service_name', 'type']).not.toContain(l);
    }
    expect(new Set(d.labels).size).toBe(d.labels.length);
    for (const [suffix, unit] of Object.entries(UNIT_FOR_SUFFIX)) {
      if (d.name.endsWith(suffix) || d.name.includes(`${suffix}_`)) expect(d.unit).toBe(unit);
    }
    // OTLP into Prometheus appends the unit word unless it is a {annotation} or already in the name.
    if (!/^\{.*\}$/.test(d.unit) && d.unit !== '1' && d.unit !== '')
      expect(d.name).toMatch(d.unit === 's' ? /_seconds/ : /_bytes/);
    if (d.unit === '1') expect(d.name).toMatch(/_ratio$/);
  });

  it('has unique names', () => {
    expect(new Set(defs.map(exposedName)).size).toBe(defs.length);
  });

  it('is documented in docs/metrics.md (run `npm run docs` after a change)', () => {
    const root = resolve(__dirname, '..');
    expect(readFileSync(resolve(root, 'docs/metrics.md'), 'utf8')).toBe(metricsDoc());
  });
});
