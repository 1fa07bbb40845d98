// Worktree isolation through a git remote (PostgreSQL store): team workers work on the task branches
// in their own clones and push them; the writer fetches a completed task's branch, merges it into
// `team/<run>` as it merges a local one, and pushes `team/<run>`, which later attempts start from.
import type { AttemptInput } from '../../machines/types.js';
import { fetchIntoBranch, pushBranch } from '../git/remote.js';
import { mergeTask } from './merge.js';
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
