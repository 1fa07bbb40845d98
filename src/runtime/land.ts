// `team land`: brings a completed run's integration branch into the user's branch, only when the
// user's working tree is clean; otherwise nothing changes.
import type { NewEvent } from '../../machines/events.js';
import { EXIT, TeamError, UsageError } from '../errors.js';
import { git, gitOrThrow, identity, linesOf } from '../git/git.js';
import { commitOf, dirtyPaths, isAncestor } from '../git/repo.js';
import type { BranchesView } from './isolation-view.js';

// teamline's own checkpoint (`.checkpoints/`, kept current during a run) does not make a tree dirty.
const OWN_FILES = /^\.checkpoints\//;

export type LandOutcome = { kind: 'landed'; into: string; commit: string } | { kind: 'already'; into: string };

// Where the run's work is and how its landing is recorded: the integration branch in the project
// (the files), or its copy fetched from the run's remote (the PostgreSQL store); `record` appends
// the branch_landed event to the run's log.
export interface LandTarget {
  /** The git ref merged: `refs/heads/team/<run>`, or the remote-tracking ref of it. */
  ref: string;
  record(event: NewEvent): Promise<void> | void;
}

// Merges `team/<run>` into the branch checked out in `dir`. A dirty working tree is refused (exit
// 2) and a conflict aborted (exit 1): either way the user's branch and tree are as they were.
export async function landRun(dir: string, runId: string, branches: BranchesView, target: LandTarget): Promise<LandOutcome> {
  const branch = branches.branch!;
  const into = (await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout || 'HEAD';
  if (!(await commitOf(dir, target.ref))) throw new UsageError(`team land: branch ${branch} of run ${runId} no longer exists`);
  if (await isAncestor(dir, target.ref, 'HEAD')) return { kind: 'already', into };
  // Untracked files do not stop a merge unless it would overwrite them (then git refuses, below).
  const dirty = (await dirtyPaths(dir, false)).filter((path) => !OWN_FILES.test(path));
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 10).join(', ') + (dirty.length > 10 ? `, … (${dirty.length} in all)` : '');
    throw new UsageError(`team land: your working tree has uncommitted changes (${shown}); nothing was changed. Commit or stash them, then run \`team land --run ${runId}\` again (the work stays on ${branch})`);
  }
  const merged = await git(dir, [...(await identity(dir)), 'merge', '--no-edit', '-m', `team: land run ${runId}`, target.ref]);
  if (!merged.ok) {
    const files = linesOf((await git(dir, ['diff', '--name-only', '--diff-filter=U'])).stdout);
    if (await commitOf(dir, 'MERGE_HEAD')) await gitOrThrow(dir, ['merge', '--abort']);
    const what = files.length > 0 ? `conflicts in ${files.join(', ')}` : merged.stderr || merged.stdout;
    throw new TeamError(`team land: merging ${branch} into ${into} failed (${what}); the merge was aborted and nothing changed: merge ${branch} yourself`, EXIT.failed);
  }
  const commit = await gitOrThrow(dir, ['rev-parse', 'HEAD']);
  await target.record({ event: 'branch_landed', branch, into, commit });
  return { kind: 'landed', into, commit };
}
