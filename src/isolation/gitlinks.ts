// Gitlinks an agent committed on its task's branch (it ran `git add` over a git repository of its
// own): each is replaced by the files of its folder before the merge, or fails the task by name.
import type { AttemptInput } from '../../machines/types.js';
import { git, gitOrThrow, identity, linesOf } from '../git/git.js';
import { gitlinksAdded, stagePlain } from '../git/nested-repos.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// Replaces the gitlinks `branch` adds since it left `team/<run>` by their folders' files, committed
// on `branch` in the worktree at `path`; returns why the task fails instead (a folder with no files).
export async function replaceGitlinks(run: IsolationParts, input: AttemptInput, path: string, branch: string): Promise<string | undefined> {
  const iso = run.isolation;
  const base = (await git(path, ['merge-base', iso.branch, branch])).stdout;
  if (base === '') return undefined;
  const links = await gitlinksAdded(path, base, branch);
  if (links.length === 0) return undefined;
  for (const dir of links) {
    const target = (await gitOrThrow(path, ['rev-parse', `HEAD:${dir.slice(0, -1)}`])).slice(0, 10);
    await gitOrThrow(path, ['rm', '--cached', '--quiet', '--', dir.slice(0, -1)]);
    await stagePlain(path, dir);
    const staged = linesOf((await git(path, ['ls-files', '--', dir])).stdout);
    if (staged.length === 0) {
      await gitOrThrow(path, ['reset', '--quiet', '--', dir.slice(0, -1)]);
      return `${branch} commits ${dir} as a gitlink to ${target}, a commit of a git repository that is not this one, and the folder holds no files to commit in its place: not merged into ${iso.branch}; the branch is kept`;
    }
  }
  await gitOrThrow(path, [...(await identity(path)), 'commit', '--quiet', '--no-verify', '-m', `team ${iso.runId}: ${input.taskId} attempt ${input.attempt} (${links.join(', ')} as plain files, not gitlinks)`]);
  const commit = await gitOrThrow(path, ['rev-parse', 'HEAD']);
  const files = linesOf((await git(path, ['diff', '--name-only', 'HEAD~1', 'HEAD'])).stdout);
  const why = links.map((dir) => `${dir} was committed as a gitlink to a git repository of its own: its files are committed as plain files in its place (its .git stays in the worktree)`).join('; ');
  append(run, { event: 'task_committed', task_id: input.taskId, attempt: input.attempt, branch, commit, files, why });
  return undefined;
}
