// Commits an agent made in its worktree off its task's branch (on a detached HEAD, on a branch of
// its own, or since dropped from every branch but still in the worktree's HEAD log) are brought
// onto the task's branch before it is merged; what cannot be brought is kept and named.
import type { AttemptInput } from '../../machines/types.js';
import { git, gitOrThrow, identity, linesOf } from '../git/git.js';
import { headLogSince, refLog } from '../git/head-log.js';
import { abortMerge, mergeInProgress } from '../git/merge.js';
import { refPart } from '../git/ref-part.js';
import { commitOf } from '../git/repo.js';
import { commitAll } from '../git/worktree.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// Brings the attempt's commits made off `branch` in the worktree at `path` onto it, and leaves the
// worktree on `branch`; returns why the task fails instead (the commits are kept on a branch named there).
export async function collectCommits(run: IsolationParts, input: AttemptInput, path: string, branch: string): Promise<string | undefined> {
  const iso = run.isolation;
  const top = iso.projectDir;
  const head = (await git(path, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout;
  const where = head === branch ? 'a branch or a detached HEAD it then left (found in the worktree\'s HEAD log)' : head === '' ? 'a detached HEAD' : `a branch of its own, ${head}`;
  if (head !== branch) {
    await commitAll(path, `team ${iso.runId}: ${input.taskId} attempt ${input.attempt} (left on ${where})`);
    await gitOrThrow(path, ['switch', '--quiet', branch]);
  }
  const since = Math.floor((iso.readyAt.get(`${input.taskId}#${input.attempt}`) ?? Date.now()) / 1000) - 1;
  const onBranch = await refLog(top, `refs/heads/${branch}`);
  const tips = (await headLogSince(path, since)).filter((commit) => !onBranch.has(commit));
  const before = (await commitOf(top, `refs/heads/${branch}`))!;
  let found = 0;
  for (const tip of tips) {
    // Commits a branch of the run holds (this task's, an earlier task's of this worktree) are not lost.
    const count = Number(await gitOrThrow(top, ['rev-list', '--count', tip, '--not', `--glob=refs/heads/${iso.branch}*`]));
    if (count === 0) continue;
    found += count;
    const merged = await git(path, [...(await identity(path)), 'merge', '--no-edit', '--no-verify', '-m', `team ${iso.runId}: ${input.taskId} attempt ${input.attempt}: the commits made on ${where}`, tip]);
    if (merged.ok) continue;
    const conflicts = linesOf((await git(path, ['diff', '--name-only', '--diff-filter=U'])).stdout);
    if (await mergeInProgress(path)) await abortMerge(path);
    const kept = `${iso.branch}-kept/${refPart(input.taskId)}-a${input.attempt}-${tip.slice(0, 10)}`;
    await gitOrThrow(top, ['update-ref', `refs/heads/${kept}`, tip]);
    return `the agent committed ${tip.slice(0, 10)} on ${where} and it does not merge into ${branch} (${conflicts.length > 0 ? `conflict in ${conflicts.join(', ')}` : merged.stderr || merged.stdout}); it is kept on branch ${kept}, nothing was merged`;
  }
  const after = (await commitOf(top, `refs/heads/${branch}`))!;
  if (after === before) return undefined;
  const files = linesOf((await git(top, ['diff', '--name-only', before, after])).stdout);
  append(run, { event: 'task_committed', task_id: input.taskId, attempt: input.attempt, branch, commit: after, files, why: `collected ${found} commit(s) the agent made on ${where}` });
  return undefined;
}
