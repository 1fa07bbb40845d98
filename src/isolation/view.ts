// Which branch holds what (the fold's BranchesView), told for `team status` and the end-of-run summary.
import type { BranchesView } from '../log/fold-git.js';

export type { BranchesView, TaskBranchView } from '../log/fold-git.js';

// Lines for a person: the isolation, each task's branch, what is kept, and how to take the work.
export function describeBranches(view: BranchesView, runId: string, status: string): string[] {
  if (view.mode === 'none') return [`isolation: none — workers shared the project folder (${view.reason})`];
  const lines = [`isolation: worktree — merged work on ${view.branch}${view.userBranch ? ` (from ${view.userBranch})` : ''}`];
  for (const t of view.tasks) {
    const why = t.state === 'conflict' ? ` — conflict in ${t.files.join(', ')}` : t.state === 'refused' ? ` — refused: commits teamline's files ${t.files.join(', ')}` : '';
    lines.push(`  ${t.task}: ${t.branch} ${t.state}${why}`);
  }
  const taskKept = view.kept.filter((k) => k.branch !== view.branch);
  if (taskKept.length > 0) lines.push(`  kept with work not in ${view.branch}: ${taskKept.map((k) => `${k.branch} (${k.commits} commit(s))`).join(', ')}`);
  if (view.landed) lines.push(`  landed into ${view.landed.into} at ${view.landed.commit.slice(0, 10)}`);
  else if (status === 'completed') lines.push(`  the work is on ${view.branch}: \`team land --run ${runId}\` merges it into ${view.userBranch || 'your branch'}`);
  return lines;
}
