// Worktree isolation through a git remote (PostgreSQL store): team workers work on the task branches
// in their own clones and push them; the writer fetches a completed task's branch, merges it into
// `team/<run>` as it merges a local one, and pushes `team/<run>`, which later attempts start from.
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import { fetchIntoBranch, pushBranch } from '../git/remote.js';
import { detach, ensureWorktree } from '../git/worktree.js';
import { mergeTask } from './merge.js';
import { append } from './facts.js';
import { taskBranch } from '../session/isolation.js';
import type { IsolationParts } from '../session/isolation.js';

// Fetches and merges the task's branch, then pushes the integration branch; why the task fails instead.
// `from`: the task whose branch it is (a select task merges its pick's).
export async function mergeRemoteTask(run: IsolationParts, input: AttemptInput, from = input.taskId): Promise<string | undefined> {
  const iso = run.isolation;
  const remote = iso.remote!;
  const branch = taskBranch(iso.branch, from);
  const fetched = await fetchIntoBranch(iso.projectDir, remote, branch);
  if (!fetched.ok) return `the task's branch ${branch} could not be fetched from ${remote} (${fetched.stderr || `git exited ${fetched.code}`}); nothing was merged`;
  const unmerged = await mergeTask(run, input, branch);
  if (unmerged) return unmerged;
  return pushIntegration(run);
}

// Pushes `team/<run>` to the remote; why not, when it could not be.
export async function pushIntegration(run: IsolationParts): Promise<string | undefined> {
  const iso = run.isolation;
  const pushed = await pushBranch(iso.projectDir, iso.remote!, iso.branch);
  return pushed.ok ? undefined : `${iso.branch} could not be pushed to ${iso.remote} (${pushed.stderr || `git exited ${pushed.code}`}): later attempts would not start from it`;
}

// The best of N on team workers: a completed candidate's pushed branch, fetched and checked out in a
// worktree of its own on the writer's machine, where its gates run as a local candidate's run in its
// worker's; undefined (and why) when the branch could not be fetched.
export async function checkoutRemoteCandidate(run: IsolationParts, taskId: string, attempt: number): Promise<{ path?: string; why?: string }> {
  const iso = run.isolation;
  const branch = taskBranch(iso.branch, taskId);
  return iso.serial(async () => {
    const fetched = await fetchIntoBranch(iso.projectDir, iso.remote!, branch);
    if (!fetched.ok) return { why: `${branch} could not be fetched from ${iso.remote} (${fetched.stderr || `git exited ${fetched.code}`})` };
    const path = iso.worktreePath(taskId);
    const how = await ensureWorktree(iso.projectDir, path, branch, iso.worktrees.has(path));
    // On a detached HEAD: the branch is fetched again when the selector's pick is merged, which git
    // refuses for a branch checked out in a worktree.
    await detach(path);
    if (how !== 'adopted') append(run, { event: 'worktree_ready', task_id: taskId, attempt, branch, path, worker: taskId, how });
    return { path: join(path, iso.record!.prefix ?? '') };
  });
}
