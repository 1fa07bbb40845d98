import { defineConfig } from 'vitest/config';
import { STATE_HOME } from './test/helpers/state-home.js';
import { LongestFirst } from './test/helpers/sequencer.js';
// First: the CA file setting emptied before any fork starts.
import './test/helpers/no-ca-file.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Worktrees go to the state folder: the suite's own (test/helpers/state-home.ts).
    env: { XDG_STATE_HOME: STATE_HOME },
    globalSetup: ['test/helpers/state-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real processes and mostly wait for them: three forks fill two cores (four
    // made the whole suite slower on two cores, 1799 s against 1518 s: the CLIs' start-ups compete).
    maxWorkers: 3,
    // The real CLIs' long suites first, so that no fork runs one alone at the end.
    sequence: { sequencer: LongestFirst },
  },
});
