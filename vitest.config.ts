import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The end-to-end tests: they start the built binary or read the build (dist/, so they need
 * `npm run build`), or start a system program `npm test` installs (promtool, prometheus,
 * victoria-metrics, vmalert, openssl, tmux, chromium). Every other test is a unit test
 * (`npm run test:unit`); test/architecture/test-split.test.ts checks that none of those does either.
 */
export const E2E = [
  'test/e2e/**',
  'test/deploy/prometheus-e2e.test.ts',
  'test/deploy/team-e2e.test.ts',
  'test/deploy/promtool.test.ts',
  'test/metrics/exposition.test.ts',
  'test/config/config.test.ts',
  'test/state/db.test.ts',
  'test/readers/droid.test.ts',
  'test/readers/pi.test.ts',
  'test/readers/sqlite.test.ts',
  // Runs ps and lsof, which `npm test` installs (scripts/test-deps.mjs).
  'test/process/ps-table.test.ts',
  'test/report/report.test.ts',
  'test/cli/store.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/yield-between-tests.ts'],
    globalSetup: ['test/helpers/temp-root.ts'],
    // e2e tests start real processes (the exporter, Prometheus); two cores are all we have.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...E2E] },
      },
      { extends: true, test: { name: 'e2e', include: E2E.map((p) => (p.endsWith('/**') ? `${p}/*.test.ts` : p)) } },
    ],
  },
});
