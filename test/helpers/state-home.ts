// The suite's state folder (vitest's globalSetup): runs with worktrees keep them in
// `$XDG_STATE_HOME/teamline/worktrees/` (src/isolation/worktree-root.ts), outside the projects the
// tests make and remove; pointed at a folder of this run of the suite, never the runner's own
// ~/.local/state, and removed with what is in it once every test ended.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The folder, named after the vitest process (the config and the global setup run there; a test
// reads it from XDG_STATE_HOME, which the config's env sets in every test fork).
export const STATE_HOME = join(tmpdir(), `teamline-test-state-${process.pid}`);

export function teardown(): void {
  rmSync(STATE_HOME, { recursive: true, force: true });
}
