// The git facts of worktree isolation go to the log through here, and into the session's
// Isolation, which keeps what they say (branches, worktrees, merges, the checkout's reading).
import type { RunSession } from '../run/session.js';

// Appends a git fact to the log and keeps it in the session's isolation.
export function append(session: RunSession, event: Parameters<RunSession['events']['append']>[0]): void {
  session.isolation.note(session.events.append(event));
}
