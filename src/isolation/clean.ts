// `team clean`: removes an ended run's worktrees and the branches whose work is held elsewhere. A
// worktree with uncommitted changes or commits on no branch (at HEAD or in its HEAD log), and a branch with commits that no
// branch kept holds, are kept and named.
import { existsSync, readdirSync, realpathSync, rmdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { NewEvent } from '../log/schema.js';
import { appendEvent, type RunPaths } from '../log/write.js';
import { git, gitOrThrow, linesOf } from '../git/git.js';
import { commitOf, dirtyPaths } from '../git/repo.js';
import { listWorktrees } from '../git/worktree.js';
import { commitsOnNoBranch } from '../git/head-log.js';
import { TASK_SEPARATOR } from '../session/isolation.js';
import { worktreesRoots } from '../session/worktree-root.js';

// What one clean did: the worktrees removed, the branches deleted, what was kept and why.
export interface CleanReport {
  removed: string[];
  deleted: string[];
  kept: string[];
  /** The branches kept for commits no other branch holds: `git branch -D` deletes them, and that work. */
  unmerged: string[];
}

// Appends a fact to the run's log (nothing, for a run whose log is gone).
type Recorder = (event: NewEvent) => void;

// Cleans one ended run whose integration branch is `integration` and whose worktrees run_started
// recorded in `folder` (absent in older logs), recording it in the run's log.
export async function cleanRun(paths: RunPaths, runId: string, integration: string, folder: string | undefined, write: { fsync: boolean }): Promise<CleanReport> {
  return cleanRunGit(paths.projectDir, runId, integration, (event) => appendEvent(paths, runId, event, write), folder);
}

// The folders that may hold a run's worktrees: the recorded one, the state folder's, the project's.
export function runWorktreeFolders(dir: string, runId: string, recorded?: string): string[] {
  return [...new Set([...(recorded ? [recorded] : []), ...worktreesRoots(dir).map((root) => join(root, runId))])];
}

// Removes the run's worktrees (runWorktreeFolders), then the run's branches whose commits are held:
// a task branch by `integration`, `integration` by a local branch that is not teamline's.
export async function cleanRunGit(dir: string, runId: string, integration: string, record: Recorder, recorded?: string): Promise<CleanReport> {
  const report: CleanReport = { removed: [], deleted: [], kept: [], unmerged: [] };
  const folders = runWorktreeFolders(dir, runId, recorded);
  const inFolder = (path: string) => folders.some((root) => {
    const inside = relative(root, path);
    return inside !== '' && !inside.startsWith('..');
  });
  for (const worktree of await listWorktrees(dir)) {
    if (!inFolder(worktree.path)) continue;
    const why = existsSync(worktree.path) ? await whyKeep(worktree.path, worktree.branch) : undefined;
    if (why) {
      report.kept.push(`worktree ${worktree.path} (${why})`);
      continue;
    }
    await gitOrThrow(dir, ['worktree', 'remove', '--force', worktree.path]);
    record({ event: 'worktree_removed', path: worktree.path });
    report.removed.push(worktree.path);
  }
  await git(dir, ['worktree', 'prune']);
  const left = new Set((await listWorktrees(dir)).map((w) => w.path));
  for (const root of folders) sweepFolder(root, left, report);
  const checkedOut = new Set((await listWorktrees(dir)).map((w) => w.branch));
  const tasks = linesOf((await git(dir, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${integration}${TASK_SEPARATOR}*`])).stdout);
  for (const branch of tasks) await deleteIfHeld(dir, branch, [integration], integration, checkedOut, report, record);
  // The integration branch goes once a branch of the user's holds all of it (HEAD alone does not: a
  // detached HEAD holds it only until the user checks out their branch).
  if (tasks.every((b) => report.deleted.includes(b))) await deleteIfHeld(dir, integration, ['--exclude=team/*', '--branches'], 'any branch of yours', checkedOut, report, record);
  return report;
}

// Why a worktree must stay: uncommitted changes, a detached HEAD with commits on no branch, or
// commits on no branch in its HEAD log (removing the worktree removes that log).
async function whyKeep(path: string, branch: string): Promise<string | undefined> {
  const dirty = await dirtyPaths(path);
  if (dirty.length > 0) return `uncommitted: ${dirty.slice(0, 5).join(', ')}`;
  const loose = branch === '' ? await commitsOnNoBranch(path, false) : 0;
  if (loose > 0) return `HEAD detached with ${loose} commit(s) on no branch`;
  const logged = await commitsOnNoBranch(path, true);
  return logged > 0 ? `its HEAD log holds ${logged} commit(s) on no branch` : undefined;
}

// Removes the run's worktree folder once empty; names what is in it that is no worktree of git's.
function sweepFolder(root: string, worktrees: Set<string>, report: CleanReport): void {
  if (!existsSync(root)) return;
  const left = readdirSync(root).map((name) => join(root, name)).filter((path) => !worktrees.has(path) && !worktrees.has(realpathSync(path)));
  for (const path of left) report.kept.push(`folder ${path} (no git worktree: left for you to look at)`);
  if (readdirSync(root).length === 0) rmdirSync(root);
}

// Deletes `branch` only when no commit of it is outside `holders` (rev-list arguments, `where` in
// words) and no worktree has it checked out.
async function deleteIfHeld(dir: string, branch: string, holders: string[], where: string, checkedOut: Set<string>, report: CleanReport, record: Recorder): Promise<void> {
  const tip = await commitOf(dir, `refs/heads/${branch}`);
  if (!tip) return;
  if (checkedOut.has(branch)) return void report.kept.push(`${branch} (checked out in a kept worktree)`);
  const count = Number(await gitOrThrow(dir, ['rev-list', '--count', tip, '--not', ...holders]));
  if (count > 0) {
    report.unmerged.push(branch);
    return void report.kept.push(`${branch} (${count} commit(s) not in ${where})`);
  }
  await gitOrThrow(dir, ['update-ref', '-d', `refs/heads/${branch}`, tip]);
  record({ event: 'branch_deleted', branch, commit: tip });
  report.deleted.push(branch);
}
