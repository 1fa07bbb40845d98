// `team land`: brings a completed run's integration branch into the user's branch, only when the
// user's working tree is clean; otherwise nothing changes.
import type { RunPaths } from '../checkpoint/store.js';
import { appendEvent } from '../checkpoint/store.js';
import { EXIT, TeamError, UsageError } from '../errors.js';
import { git, gitOrThrow, identity, linesOf } from '../git/git.js';
import { commitOf, dirtyPaths, isAncestor } from '../git/repo.js';
import type { BranchesView } from './isolation-view.js';

// teamline's own checkpoint (`.checkpoints/`, kept current during a run) does not make a tree dirty.
const OWN_FILES = /^\.checkpoints\//;

export type LandOutcome = { kind: 'landed'; into: string; commit: string } | { kind: 'already'; into: string };

// Merges `team/<run>` into the branch checked out in the project. A dirty working tree is refused
// (exit 2) and a conflict aborted (exit 1): either way the user's branch and tree are as they were.
export async function landRun(paths: RunPaths, runId: string, branches: BranchesView, write: { fsync: boolean }): Promise<LandOutcome> {
  const dir = paths.projectDir;
  const branch = branches.branch!;
  const into = (await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout || 'HEAD';
  if (!(await commitOf(dir, `refs/heads/${branch}`))) throw new UsageError(`team land: branch ${branch} of run ${runId} no longer exists`);
  if (await isAncestor(dir, branch, 'HEAD')) return { kind: 'already', into };
  // Untracked files do not stop a merge unless it would overwrite them (then git refuses, below).
  const dirty = (await dirtyPaths(dir, false)).filter((path) => !OWN_FILES.test(path));
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 10).join(', ') + (dirty.length > 10 ? `, … (${dirty.length} in all)` : '');
    throw new UsageError(`team land: your working tree has uncommitted changes (${shown}); nothing was changed. Commit or stash them, then run \`team land --run ${runId}\` again (the work stays on ${branch})`);
  }
  const merged = await git(dir, [...(await identity(dir)), 'merge', '--no-edit', '-m', `team: land run ${runId}`, branch]);
  if (!merged.ok) {
    const files = linesOf((await git(dir, ['diff', '--name-only', '--diff-filter=U'])).stdout);
    if (await commitOf(dir, 'MERGE_HEAD')) await gitOrThrow(dir, ['merge', '--abort']);
    const what = files.length > 0 ? `conflicts in ${files.join(', ')}` : merged.stderr || merged.stdout;
    throw new TeamError(`team land: merging ${branch} into ${into} failed (${what}); the merge was aborted and nothing changed: merge ${branch} yourself`, EXIT.failed);
  }
  const commit = await gitOrThrow(dir, ['rev-parse', 'HEAD']);
  appendEvent(paths, runId, { event: 'branch_landed', branch, into, commit }, write);
  return { kind: 'landed', into, commit };
}
