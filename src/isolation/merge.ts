// Merging a completed task's branch into the integration branch `team/<run>`, in the integration
// worktree: once, even across a crash mid-merge; a conflict or teamline's own files fail the task.
import { claimsOverlap } from '../../machines/ownership.js';
import type { AttemptInput } from '../../machines/types.js';
import { commitOf, isAncestor } from '../git/repo.js';
import { mergeBranch } from '../git/merge.js';
import { append } from './facts.js';
import { ensureIntegration, stashLeftovers } from './integration.js';
import { checkCheckout } from './watch.js';
import type { IsolationParts } from '../session/isolation.js';

// Merges the task's branch into the integration branch: once, even across a crash mid-merge.
export async function mergeTask(run: IsolationParts, input: AttemptInput, branch: string): Promise<string | undefined> {
  const iso = run.isolation;
  const into = iso.branch;
  const path = await ensureIntegration(run);
  await stashLeftovers(run, path, `left in the integration worktree before merging ${branch}`);
  await checkCheckout(run, `at the merge of ${input.taskId}`);
  const key = `${input.taskId}#${input.attempt}`;
  const tip = (await commitOf(iso.projectDir, branch))!;
  const ref = { task_id: input.taskId, attempt: input.attempt, branch, into };
  if (await isAncestor(iso.projectDir, tip, into)) {
    if (!iso.mergesDone.has(key)) append(run, { event: 'merge_done', ...ref, commit: (await commitOf(path, 'HEAD'))!, how: iso.mergesStarted.has(key) ? 'finished after a restart' : 'already merged' });
    return undefined;
  }
  append(run, { event: 'merge_started', ...ref, tip });
  await run.events.flush();
  const outcome = await mergeBranch(path, branch, `team ${iso.runId}: merge ${input.taskId} (attempt ${input.attempt})`);
  if (outcome.kind === 'merged') {
    append(run, { event: 'merge_done', ...ref, commit: outcome.commit, how: 'merged' });
    run.progress.emit({ type: 'merge', task: input.taskId, branch, into }, `  ⇢ ${branch} merged into ${into}`);
    noteStrays(run, input, outcome.changed);
    return undefined;
  }
  const { files, ours, theirs } = outcome;
  if (outcome.kind === 'runtime-files') {
    return failMerge(run, input, branch, 'runtime-files', files, ours, theirs, `${branch} commits teamline's own files (${files.join(', ')}): not merged into ${into}; the branch is kept`);
  }
  const why = `merge conflict: ${branch} (theirs, ${theirs.slice(0, 10)}) and ${into} (ours, ${ours.slice(0, 10)}) both change ${files.join(', ')}; the merge was aborted and both sides are kept; a fix task resolves it in a worktree where the merge waits with conflict markers`;
  return failMerge(run, input, branch, 'conflict', files, ours, theirs, why);
}

// The most stray paths a record names; the rest are counted.
const LISTED_STRAYS = 20;

// A task whose plan declared its files and whose branch changed others: recorded and told (the
// status, the report and the next stages see it). A task that declared nothing strays nowhere.
function noteStrays(run: IsolationParts, input: AttemptInput, changed: string[]): void {
  const claims = input.def?.files;
  if (!claims?.length) return;
  const strays = changed.filter((file) => !claims.some((claim) => claimsOverlap(file, claim)));
  if (strays.length === 0) return;
  const paths = strays.slice(0, LISTED_STRAYS);
  append(run, { event: 'files_strayed', task_id: input.taskId, attempt: input.attempt, paths, more: strays.length - paths.length });
  run.progress.emit({ type: 'files.strayed', task: input.taskId, attempt: input.attempt, paths }, `  ⚠ ${input.taskId} a${input.attempt} changed files outside what the plan gave it: ${paths.join(', ')}${strays.length > paths.length ? ` and ${strays.length - paths.length} more` : ''}`);
}

// Records the failed merge (the machine will not retry the task) and returns the evidence.
function failMerge(run: IsolationParts, input: AttemptInput, branch: string, reason: 'conflict' | 'runtime-files', files: string[], ours: string, theirs: string, why: string): string {
  const full = run.events.commit({ event: 'merge_failed', task_id: input.taskId, attempt: input.attempt, branch, into: run.isolation.branch, reason, files, ours, theirs });
  run.isolation.note(full);
  run.progress.emit({ type: 'merge.failed', task: input.taskId, reason, files }, `  ✘ ${why}`);
  return why;
}
