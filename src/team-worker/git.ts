// The code of an attempt through git (its job's `git`, PostgreSQL store with team.remote): a worktree
// in this worker's clone, made from the remote's base, or, for an exec or fix attempt, from its task
// branch there when an earlier attempt left one; after the agent, that branch committed and pushed.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOrThrow } from '../git/git.js';
import { fetchTracking, pushBranch } from '../git/remote.js';
import { abortMerge, filesWithMarkers, mergeInProgress, startConflictedMerge } from '../git/merge.js';
import { isAncestor } from '../git/repo.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';
import { serialFor } from '../git/serial.js';
import { commitAll, listWorktrees } from '../git/worktree.js';
import type { AttemptJob } from '../store/attempt-queue.js';

// What the finished report says of the attempt's branch.
export interface GitOutcome {
  branch?: string;
  commit?: string;
  pushed: boolean;
  error?: string;
  /** A conflict fix: the conflicted files that still hold conflict markers (nothing was committed). */
  markers?: string[];
}

export interface AttemptTree {
  /** Where the agent works: the worktree, at the project's folder inside the repository. */
  workDir: string;
  /** Commits what the agent left on the task's branch and pushes it; removes the worktree. */
  finish(why: string): Promise<GitOutcome>;
}

// Makes the attempt's worktree under `folder` (the worker's own, in its clone at `cloneDir`); throws
// with a readable reason when the clone or the remote cannot give it. The attempts a worker runs at
// once share its clone, so their fetches, worktree changes and pushes there go one at a time.
export async function openAttemptTree(cloneDir: string, folder: string, job: AttemptJob): Promise<AttemptTree> {
  const top = await git(cloneDir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new Error(`this worker's folder ${cloneDir} is not a git clone, and the run's code goes through the remote "${job.git!.remote}"`);
  const serial = serialFor(top.stdout);
  const tree = await serial.run(() => makeAttemptTree(top.stdout, folder, job));
  return { workDir: tree.workDir, finish: (why) => serial.run(() => tree.finish(why)) };
}

async function makeAttemptTree(repo: string, folder: string, job: AttemptJob): Promise<AttemptTree> {
  const spec = job.git!;
  keepTeamOutOfGit(repo);
  const base = await fetchTracking(repo, spec.remote, spec.base);
  if (!base.ref) throw new Error(`${spec.base} could not be fetched from "${spec.remote}" (${base.result.stderr || `git exited ${base.result.code}`})`);
  const path = join(folder, 'worktrees', job.runId, `${job.taskId}-a${job.attempt}`);
  await removeWorktree(repo, path);
  let conflicted: string[] = [];
  if (spec.branch) {
    const own = await fetchTracking(repo, spec.remote, spec.branch);
    // An earlier attempt's worktree on this machine that still holds the branch lets it go first.
    for (const tree of await listWorktrees(repo)) if (tree.branch === spec.branch) await removeWorktree(repo, tree.path);
    await gitOrThrow(repo, ['worktree', 'add', '--quiet', '--no-track', '-B', spec.branch, path, own.ref ?? base.ref]);
    conflicted = spec.merging ? await startMerge(repo, path, spec.remote, spec.merging) : [];
  } else {
    await gitOrThrow(repo, ['worktree', 'add', '--quiet', '--detach', path, base.ref]);
  }
  return {
    workDir: join(path, spec.prefix),
    finish: async (why) => {
      if (!spec.branch) {
        await removeWorktree(repo, path);
        return { pushed: false };
      }
      // A conflict is resolved only when its markers are gone: otherwise nothing is committed, and
      // the next attempt merges again from the start.
      const markers = await filesWithMarkers(path, conflicted);
      if (markers.length > 0) {
        if (await mergeInProgress(path)) await abortMerge(path);
        await removeWorktree(repo, path);
        return { branch: spec.branch, pushed: false, markers };
      }
      await commitAll(path, `team ${job.runId}: ${job.taskId} attempt ${job.attempt} (${why})`);
      const commit = await gitOrThrow(path, ['rev-parse', 'HEAD']);
      const pushed = await pushBranch(path, spec.remote, spec.branch);
      if (!pushed.ok) return { branch: spec.branch, commit, pushed: false, error: pushed.stderr || `git push exited ${pushed.code}` };
      await removeWorktree(repo, path);
      return { branch: spec.branch, commit, pushed: true };
    },
  };
}

// Starts merging the conflicting branch into the worktree, its conflicts left in the files for the
// agent (unless the branch holds it already); returns the conflicted files.
async function startMerge(repo: string, path: string, remote: string, merging: string): Promise<string[]> {
  const theirs = await fetchTracking(repo, remote, merging);
  if (!theirs.ref) throw new Error(`${merging}, whose conflict this attempt resolves, could not be fetched from "${remote}" (${theirs.result.stderr || `git exited ${theirs.result.code}`})`);
  if (await isAncestor(path, theirs.ref, 'HEAD')) return [];
  return startConflictedMerge(path, theirs.ref);
}

// Removes a worktree of this clone (whatever it holds: its branch was pushed, or it is a leftover).
async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', path]);
  if (existsSync(path)) rmSync(path, { recursive: true, force: true });
  await git(repo, ['worktree', 'prune']);
}
