import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn many real processes; two cores share them better in fewer forks.
    maxWorkers: 2,
  },
});
