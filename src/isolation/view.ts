// Which branch holds what (the fold's BranchesView), told for `team status` and the end-of-run summary.
import type { BranchesView } from '../log/fold/git.js';

export type { BranchesView, TaskBranchView } from '../log/fold/git.js';

// Lines for a person: the isolation, each task's branch, what is kept, and how to take the work.
// `attention`: whether the lines that need attention (the checkout changed, a branch put back, a
// lock left) are told here too, as the end summary does; `team status` lists them in its one list.
export function describeBranches(view: BranchesView, runId: string, status: string, { attention = true }: { attention?: boolean } = {}): string[] {
  if (view.mode === 'none') return [`isolation: none — workers shared the project folder (${view.reason})`, ...savedLines(view, runId)];
  const lines = [`isolation: worktree — merged work on ${view.branch}${view.userBranch ? ` (from ${view.userBranch})` : ''}`];
  for (const t of view.tasks) {
    const why = t.state === 'conflict' ? ` — conflict in ${t.files.join(', ')}` : t.state === 'refused' ? ` — refused: commits teamline's files ${t.files.join(', ')}` : t.state === 'not picked' ? ' — a candidate the selector did not pick, kept until `team clean`' : t.state === 'picked' ? ' — the candidate merged' : '';
    lines.push(`  ${t.task}: ${t.branch} ${t.state}${why}`);
  }
  const acknowledged = (view.checkout?.changed ?? []).slice(0, view.checkout?.acknowledged ?? 0);
  lines.push(...acknowledged.map((change) => `  acknowledged: ${describeChange(change)}`));
  lines.push(...ownCheckoutChanges(view).map((change) => `  ${change}`));
  if (attention) lines.push(...branchAttention(view).map((line) => `  needs attention: ${line}`));
  const taskKept = view.kept.filter((k) => k.branch !== view.branch);
  if (taskKept.length > 0) lines.push(`  kept with work not in ${view.branch}: ${taskKept.map((k) => `${k.branch} (${k.commits} commit(s))`).join(', ')}`);
  if (view.landed) lines.push(`  landed into ${view.landed.into} at ${view.landed.commit.slice(0, 10)}`);
  else if (status === 'completed') lines.push(`  the work is on ${view.branch}: \`team land --run ${runId}\` merges it into ${view.userBranch || 'your branch'}`);
  return lines;
}

// What of the branches needs a person: the run's branch put back, changes of the user's checkout no
// `team land --acknowledge` took as seen, git locks left in the checkout.
export function branchAttention(view: BranchesView): string[] {
  const lines: string[] = [];
  for (const r of view.restored ?? []) {
    const how = r.was === undefined ? 'was deleted' : `had moved to ${r.was.slice(0, 10)} (kept as ${r.kept})`;
    lines.push(`${view.branch} ${how} during the run; put back at ${r.commit.slice(0, 10)}, the commit the log recorded`);
  }
  lines.push(...unseenCheckoutChanges(view));
  for (const s of view.strayed ?? []) lines.push(`${s.attempt} changed files outside what the plan gave it: ${s.paths.join(', ')}${s.more > 0 ? ` and ${s.more} more` : ''}; merged, and another task may own them`);
  for (const r of view.refused ?? []) lines.push(`the fence refused writes of ${r.attempt} outside its work: ${r.paths.join(', ')}; your checkout, branches and home are as they were`);
  for (const lock of new Set(view.userLocks)) lines.push(`${lock} is a git lock in your checkout that no git process held when the run resumed; teamline left it alone`);
  return lines;
}

// The changes of the user's checkout no `team land --acknowledge` took as seen, each in words. In a
// fenced run with worktrees no agent could write there: the changes are the user's own, none to acknowledge.
export function unseenCheckoutChanges(view: BranchesView): string[] {
  if (ownChanges(view)) return [];
  return (view.checkout?.changed ?? []).slice(view.checkout?.acknowledged ?? 0).map(describeChange);
}

// The changes of the user's checkout in a fenced run with worktrees, told as theirs.
export function ownCheckoutChanges(view: BranchesView): string[] {
  if (!ownChanges(view)) return [];
  return (view.checkout?.changed ?? []).map((change) => `your own change during the run (its workers were fenced out of your checkout; seen ${change.seen}): ${change.changes.join('; ')}`);
}

function ownChanges(view: BranchesView): boolean {
  return view.mode === 'worktree' && view.fence?.on === true;
}

function describeChange(change: NonNullable<BranchesView['checkout']>['changed'][number]): string {
  const running = change.attempts.length > 0 ? `; running then: ${change.attempts.join(', ')}` : '';
  return `your checkout changed while the run ran (seen ${change.seen}): ${change.changes.join('; ')}${running}`;
}

// Under isolation none: where the user's uncommitted work at the start is kept, and how to have it back.
function savedLines(view: BranchesView, runId: string): string[] {
  const saved = view.saved;
  if (!saved) return [];
  if (saved.restored) return [`  your working tree was restored to ${saved.ref}; what it held before is kept as ${saved.restored.kept}`];
  return [`  your uncommitted work at the start is kept as ${saved.ref} (${saved.commit.slice(0, 10)}): \`team restore --run ${runId}\` brings it back`];
}
