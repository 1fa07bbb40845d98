import { configDefaults, defineConfig } from 'vitest/config';
import { STATE_HOME } from './test/helpers/state-home.js';
import { LongestFirst } from './test/helpers/sequencer.js';

// The files that replace a module with vi.mock: they need a fresh module graph of their own.
const MOCKING = ['test/log/snapshot.test.ts', 'test/log/event-group.test.ts', 'test/session/event-log.test.ts', 'test/commands/help-parity.test.ts'];

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: 'mocking', include: MOCKING } },
      // Every other file runs in a fork that ran files before it, without a fresh module graph each:
      // about a quarter of a second of CPU a file, a minute of the suite on two cores.
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...MOCKING], isolate: false } },
    ],
  },
});
