// Worktree isolation around one exec or fix attempt: its worktree on its task's branch before it
// starts; after it, its leftovers committed and (completed) its branch merged into `team/<run>`.
import type { AttemptInput } from '../../machines/types.js';
import { commitOf, isAncestor } from '../git/repo.js';
import { abortMerge, filesWithMarkers, mergeInProgress, startConflictedMerge } from '../git/merge.js';
import { commitAll, detach, ensureBranch, ensureWorktree, holderOf, listWorktrees } from '../git/worktree.js';
import { append } from './facts.js';
import { isWorkStage, taskBranch, taskOfBranch, type ConflictRecord } from '../session/isolation.js';
import { ensureIntegration } from './integration.js';
import { collectCommits } from './collect.js';
import { replaceGitlinks } from './gitlinks.js';
import { mergeTask } from './merge.js';
import { mergeRemoteTask } from './remote.js';
import type { IsolationParts } from '../session/isolation.js';

// Puts the attempt's worker worktree on its task's branch (created from `team/<run>` at the
// task's first attempt, when its blockedBy tasks are merged). A resumed attempt's live worktree
// is adopted untouched; a missing one is re-created from its branch.
export async function prepareAttempt(run: IsolationParts, input: AttemptInput): Promise<void> {
  const iso = run.isolation;
  if (!iso.active) return;
  iso.started.set(`${input.taskId}#${input.attempt}`, `${input.taskId} a${input.attempt} on ${input.worker}`);
  // Through a remote, each team worker makes the attempt's worktree in its own clone.
  if (iso.remote !== undefined) return void (await iso.serial(() => ensureIntegration(run)));
  await iso.serial(async () => {
    await ensureIntegration(run);
    if (!isWorkStage(input.stage)) return;
    const top = iso.projectDir;
    const branch = taskBranch(iso.branch, input.taskId);
    const path = iso.worktreePath(input.worker);
    if (await ensureBranch(top, branch, iso.branch)) {
      append(run, { event: 'branch_created', branch, from: iso.branch, commit: (await commitOf(top, branch))!, task_id: input.taskId });
    }
    // One listing serves the three looks: saving leftovers commits on a worktree's branch, and
    // detaching the holder changes only the holder's entry.
    const listed = await listWorktrees(top);
    if (!input.resumed) {
      const here = listed.find((w) => w.path === path);
      if (here?.branch) await saveLeftovers(run, path, here.branch, input.attempt, 'left in the worktree by an earlier attempt');
      const holder = holderOf(listed, branch, path);
      if (holder) {
        await saveLeftovers(run, holder, branch, input.attempt, 'left in another worker\'s worktree by an earlier attempt');
        await detach(holder);
      }
    }
    const how = await ensureWorktree(top, path, branch, iso.worktrees.has(path), listed);
    const conflict = input.resumed ? undefined : await pendingConflict(run, input, path, branch);
    const conflicts = conflict ? await startConflictedMerge(path, conflict.branch) : undefined;
    append(run, { event: 'worktree_ready', task_id: input.taskId, attempt: input.attempt, branch, path, worker: input.worker, how, ...(conflict ? { merging: conflict.branch, conflicts } : {}) });
    await run.events.flush();
  });
}

// After an exec or fix attempt: commits what it left; a completed one is merged into `team/<run>`.
// Returns why the task fails instead (a conflict, teamline's files, conflict markers left).
// The best of N: a candidate's work stays on its branch, and the selector's attempt merges the
// branch of the candidate it picked (`pick`).
export async function concludeTask(run: IsolationParts, input: AttemptInput, completed: boolean, pick?: string): Promise<string | undefined> {
  const iso = run.isolation;
  if (!iso.active) return undefined;
  if (input.candidates !== undefined) return completed && pick !== undefined ? iso.serial(() => (iso.remote !== undefined ? mergeRemoteTask(run, input, pick) : mergeTask(run, input, taskBranch(iso.branch, pick)))) : undefined;
  if (!isWorkStage(input.stage)) return undefined;
  const candidate = input.def?.candidateOf !== undefined;
  if (iso.remote !== undefined) return completed && !candidate ? iso.serial(() => mergeRemoteTask(run, input)) : undefined;
  return iso.serial(async () => {
    const path = iso.worktreePath(input.worker);
    const branch = taskBranch(iso.branch, input.taskId);
    const conflicted = iso.fixing.get(input.taskId) ?? [];
    if (completed && conflicted.length > 0) {
      const left = await filesWithMarkers(path, conflicted);
      if (left.length > 0) return `conflict markers are still in ${left.join(', ')}: the conflict is not resolved, nothing was committed or merged`;
    }
    const merging = await mergeInProgress(path);
    if (!merging) {
      const lost = await collectCommits(run, input, path, branch);
      if (lost) return lost;
    }
    // A failed conflict fix leaves its merge in progress for the next attempt, not committed half-resolved.
    if (completed || !merging) await saveLeftovers(run, path, branch, input.attempt, completed ? 'completed' : 'failed');
    if (!completed) return undefined;
    const linked = await replaceGitlinks(run, input, path, branch);
    return linked ?? (candidate ? undefined : mergeTask(run, input, branch));
  });
}

// Commits what a worktree holds uncommitted on `branch`, as a fact of the log.
export async function saveLeftovers(run: IsolationParts, path: string, branch: string, attempt: number, why: string): Promise<void> {
  const iso = run.isolation;
  const task = taskOfBranch(iso.branch, branch);
  if (task === undefined) return;
  if (why !== 'completed' && why !== 'failed' && (await mergeInProgress(path))) await abortMerge(path);
  const done = await commitAll(path, `team ${iso.runId}: ${task} attempt ${attempt} (${why})`);
  if (done) append(run, { event: 'task_committed', task_id: task, attempt, branch, commit: done.commit, files: done.files, why: why + done.nested.map(describePlainFiles).join('') });
}

// What a task_committed says of a git repository of its own committed as plain files.
function describePlainFiles(dir: string): string {
  return `; ${dir} is a git repository of its own: its files are committed as plain files (its .git stays in the worktree)`;
}

// The conflict this fix attempt resolves (its defect is `task-<T>` of a task whose merge
// conflicted), when its branch does not hold that task's work yet.
async function pendingConflict(run: IsolationParts, input: AttemptInput, path: string, branch: string): Promise<ConflictRecord | undefined> {
  const conflict = conflictToFix(run, input);
  if (!conflict || (await mergeInProgress(path))) return undefined;
  return (await isAncestor(run.isolation.projectDir, conflict.branch, branch)) ? undefined : conflict;
}

// The conflict a fix attempt is for, if it is one of those.
export function conflictToFix(run: IsolationParts, input: AttemptInput): ConflictRecord | undefined {
  if (input.stage !== 'team-fix' || !input.def) return undefined;
  const title = input.def.title;
  return [...run.isolation.conflicts.values()].find((c) => title.startsWith(`Fix defect task-${c.task} (task ${c.task})`));
}
