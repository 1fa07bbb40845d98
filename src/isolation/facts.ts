// The git facts of worktree isolation go to the log through here, and into the run's
// Isolation, which keeps what they say (branches, worktrees, merges, the checkout's reading).
import type { IsolationParts } from '../session/isolation.js';

// Appends a git fact to the log and keeps it in the run's isolation.
export function append(run: IsolationParts, event: Parameters<IsolationParts['events']['append']>[0]): void {
  run.isolation.note(run.events.append(event));
}
