import { defineConfig } from 'vitest/config';
import './test/helpers/no-ca-file.js';

// The fast lane (`npm run test:unit`): the pure parts — the machine, the log's fold, the handoffs,
// the config, the adapters' parsers — whose tests start no process and open no store. A new test in
// these folders joins the lane; one that spawns belongs elsewhere in test/.
export default defineConfig({
  test: {
    include: ['test/machines/**/*.test.ts', 'test/log/**/*.test.ts', 'test/handoffs/**/*.test.ts', 'test/config/**/*.test.ts', 'test/workers/adapters/**/*.test.ts'],
    // The stub CLIs' own checks run the stubs: not pure.
    exclude: ['test/workers/adapters/stubs.test.ts'],
    testTimeout: 60_000,
  },
});
