import { defineConfig } from 'vitest/config';
import { STATE_HOME } from './test/helpers/state-home.js';
import { LongestFirst } from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Worktrees go to the state folder: the suite's own (test/helpers/state-home.ts).
    env: { XDG_STATE_HOME: STATE_HOME },
    globalSetup: ['test/helpers/state-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real processes and mostly wait for them (a whole run on 3 forks kept 1.1
    // cores busy on average): four forks fill two cores.
    maxWorkers: 4,
    // The real CLIs' long suites first, so that no fork runs one alone at the end.
    sequence: { sequencer: LongestFirst },
  },
});
