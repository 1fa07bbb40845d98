// `team land`: brings a completed run's integration branch into the user's checked-out branch, only
// when the working tree is clean and the merge overwrites no file of theirs; otherwise nothing changes.
import type { NewEvent } from '../log/schema.js';
import { EXIT, TeamError, UsageError } from '../sys/errors.js';
import { git, gitOrThrow, identity, linesOf } from '../git/git.js';
import { pathsInTheWay } from '../git/in-the-way.js';
import { commitOf, dirtyPaths, isAncestor } from '../git/repo.js';
import { unseenCheckoutChanges, type BranchesView } from './view.js';

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

// Merges `team/<run>` into the branch checked out in `dir`. A detached HEAD, a dirty working tree
// and files the merge would overwrite are refused (exit 2), a conflict aborted (exit 1): either way
// the user's branch and tree are as they were.
export async function landRun(dir: string, runId: string, branches: BranchesView, target: LandTarget, acknowledge = false): Promise<LandOutcome> {
  const branch = branches.branch!;
  const again = `run \`team land --run ${runId}\` again (the work stays on ${branch})`;
  const unseen = unseenCheckoutChanges(branches);
  if (unseen.length > 0 && !acknowledge) {
    throw new UsageError(`team land: ${unseen.join('; and ')}; nothing was changed. If you made these changes yourself (a commit or an edit of yours during the run), they are fine: \`team land --run ${runId} --acknowledge\` lands the run's work beside them. If an agent made them, look at your checkout first (git status, git log, git reflog) and mend what you need, then acknowledge them the same way`);
  }
  if (unseen.length > 0) await target.record({ event: 'checkout_acknowledged', changes: branches.checkout!.changed.length });
  const into = (await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout;
  if (!into) throw new UsageError(`team land: HEAD is detached, on no branch; nothing was changed. Check out the branch to land into, then ${again}`);
  if (!(await commitOf(dir, target.ref))) throw new UsageError(`team land: branch ${branch} of run ${runId} no longer exists`);
  if (await isAncestor(dir, target.ref, 'HEAD')) return { kind: 'already', into };
  const dirty = (await dirtyPaths(dir, false)).filter((path) => !OWN_FILES.test(path));
  if (dirty.length > 0) throw new UsageError(`team land: your working tree has uncommitted changes (${listed(dirty)}); nothing was changed. Commit or stash them, then ${again}`);
  const inTheWay = (await pathsInTheWay(dir, target.ref)).map((f) => `${f.path} (${f.ignored ? 'ignored' : 'untracked'})`);
  if (inTheWay.length > 0) throw new UsageError(`team land: ${branch} adds files that are already in your checkout, untracked or ignored by git: ${listed(inTheWay)}; the merge would overwrite them, so nothing was changed. Move them out of the way (or commit them), then ${again}`);
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

// The first ten of a list, and how many in all.
function listed(items: string[]): string {
  return items.slice(0, 10).join(', ') + (items.length > 10 ? `, … (${items.length} in all)` : '');
}
