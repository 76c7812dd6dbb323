import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e tests start real processes (the exporter, Prometheus); two cores are all we have.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
