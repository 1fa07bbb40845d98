// Which branch holds what, from a run's log alone: for `team status` and the end-of-run summary.
import type { TeamEvent } from '../log/schema.js';
import { readRunFiles } from '../log/read.js';
import type { RunPaths } from '../log/write.js';

export interface TaskBranchView {
  task: string;
  branch: string;
  /** merged into the integration branch, or not (conflict, refused), or not yet. */
  state: 'merged' | 'conflict' | 'refused' | 'not merged';
  files: string[];
}

export interface BranchesView {
  mode: 'worktree' | 'none';
  reason: string;
  branch?: string;
  userBranch?: string;
  /** PostgreSQL store: the git remote the run's branches went through (team.remote). */
  remote?: string;
  tasks: TaskBranchView[];
  /** The last branches_kept: branches with commits their target lacks. */
  kept: Array<{ branch: string; commits: number }>;
  landed?: { into: string; commit: string };
  /** Each time the integration branch was put back at its recorded commit (an agent deleted or moved it). */
  restored?: Array<{ commit: string; was?: string; kept?: string }>;
  /** Stale git locks found in the user's checkout on a resume (reported, never removed). */
  userLocks?: string[];
  /** What the watch on the user's checkout saw change during the run, and how many of those a `team land --acknowledge` took as seen. */
  checkout?: { changed: Array<{ changes: string[]; seen: string; attempts: string[] }>; acknowledged: number };
}

// The events foldBranches reads.
const BRANCH_EVENTS: ReadonlySet<string> = new Set(['run_started', 'branch_created', 'merge_done', 'merge_failed', 'branches_kept', 'branch_landed', 'branch_restored', 'git_lock_stale', 'checkout_changed', 'checkout_acknowledged']);

// The branches of a run in the files, from the event files foldBranches reads and no others.
export function readBranches(paths: RunPaths): BranchesView | undefined {
  return foldBranches(readRunFiles(paths, { only: BRANCH_EVENTS }).events);
}

// Folds the git facts of a run's log; undefined for a run started before isolation existed.
export function foldBranches(events: TeamEvent[]): BranchesView | undefined {
  let view: BranchesView | undefined;
  const tasks = new Map<string, TaskBranchView>();
  for (const event of events) {
    if (event.event === 'run_started' && event.isolation) {
      const { mode, reason, branch, userBranch, remote } = event.isolation;
      view = { mode, reason, branch, userBranch, ...(remote !== undefined && { remote }), tasks: [], kept: [] };
    } else if (!view) continue;
    else if (event.event === 'branch_created' && event.task_id) tasks.set(event.task_id, { task: event.task_id, branch: event.branch, state: 'not merged', files: [] });
    else if (event.event === 'merge_done') tasks.set(event.task_id, { task: event.task_id, branch: event.branch, state: 'merged', files: [] });
    else if (event.event === 'merge_failed') tasks.set(event.task_id, { task: event.task_id, branch: event.branch, state: event.reason === 'conflict' ? 'conflict' : 'refused', files: event.files });
    else if (event.event === 'branches_kept') view.kept = event.branches;
    else if (event.event === 'branch_landed') view.landed = { into: event.into, commit: event.commit };
    else if (event.event === 'checkout_changed') (view.checkout ??= { changed: [], acknowledged: 0 }).changed.push({ changes: event.changes, seen: event.seen, attempts: event.attempts });
    else if (event.event === 'checkout_acknowledged' && view.checkout) view.checkout.acknowledged = event.changes;
    else if (event.event === 'git_lock_stale' && !event.removed) (view.userLocks ??= []).push(event.path);
    else if (event.event === 'branch_restored') (view.restored ??= []).push({ commit: event.commit, ...(event.was !== undefined && { was: event.was }), ...(event.kept !== undefined && { kept: event.kept }) });
  }
  if (view) view.tasks = [...tasks.values()];
  return view;
}

// Lines for a person: the isolation, each task's branch, what is kept, and how to take the work.
export function describeBranches(view: BranchesView, runId: string, status: string): string[] {
  if (view.mode === 'none') return [`isolation: none — workers shared the project folder (${view.reason})`];
  const lines = [`isolation: worktree — merged work on ${view.branch}${view.userBranch ? ` (from ${view.userBranch})` : ''}`];
  for (const t of view.tasks) {
    const why = t.state === 'conflict' ? ` — conflict in ${t.files.join(', ')}` : t.state === 'refused' ? ` — refused: commits teamline's files ${t.files.join(', ')}` : '';
    lines.push(`  ${t.task}: ${t.branch} ${t.state}${why}`);
  }
  for (const r of view.restored ?? []) {
    const how = r.was === undefined ? 'was deleted' : `had moved to ${r.was.slice(0, 10)} (kept as ${r.kept})`;
    lines.push(`  needs attention: ${view.branch} ${how} during the run; put back at ${r.commit.slice(0, 10)}, the commit the log recorded`);
  }
  lines.push(...checkoutLines(view));
  for (const lock of new Set(view.userLocks)) lines.push(`  needs attention: ${lock} is a git lock in your checkout that no git process held when the run resumed; teamline left it alone`);
  const taskKept = view.kept.filter((k) => k.branch !== view.branch);
  if (taskKept.length > 0) lines.push(`  kept with work not in ${view.branch}: ${taskKept.map((k) => `${k.branch} (${k.commits} commit(s))`).join(', ')}`);
  if (view.landed) lines.push(`  landed into ${view.landed.into} at ${view.landed.commit.slice(0, 10)}`);
  else if (status === 'completed') lines.push(`  the work is on ${view.branch}: \`team land --run ${runId}\` merges it into ${view.userBranch || 'your branch'}`);
  return lines;
}

// The changes the watch saw in the user's checkout; those not acknowledged need attention.
export function checkoutLines(view: BranchesView): string[] {
  const { changed, acknowledged } = view.checkout ?? { changed: [], acknowledged: 0 };
  return changed.map((c, i) => {
    const running = c.attempts.length > 0 ? `; running then: ${c.attempts.join(', ')}` : '';
    return `  ${i < acknowledged ? 'acknowledged' : 'needs attention'}: your checkout changed while the run ran (seen ${c.seen}): ${c.changes.join('; ')}${running}`;
  });
}

// How many changes of the user's checkout no `team land --acknowledge` took as seen.
export function unacknowledgedChanges(view: BranchesView): number {
  return view.checkout ? view.checkout.changed.length - view.checkout.acknowledged : 0;
}
