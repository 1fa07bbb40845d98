// `team clean`: removes an ended run's worktrees and the branches whose work is merged. A worktree
// with uncommitted changes, and a branch with commits its target lacks, are kept and named.
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { appendEvent, type RunPaths } from '../checkpoint/store.js';
import { git, gitOrThrow, linesOf } from '../git/git.js';
import { commitOf, dirtyPaths, isAncestor } from '../git/repo.js';
import { listWorktrees } from '../git/worktree.js';
import { TASK_SEPARATOR, WORKTREES_DIR } from './isolation.js';

export interface CleanReport {
  removed: string[];
  deleted: string[];
  kept: string[];
}

// Cleans one ended run whose integration branch is `integration`.
export async function cleanRun(paths: RunPaths, runId: string, integration: string, write: { fsync: boolean }): Promise<CleanReport> {
  const dir = paths.projectDir;
  const report: CleanReport = { removed: [], deleted: [], kept: [] };
  const record = (event: Parameters<typeof appendEvent>[2]) => appendEvent(paths, runId, event, write);
  const root = join(dir, WORKTREES_DIR, runId);
  for (const worktree of await listWorktrees(dir)) {
    const inside = relative(root, worktree.path);
    if (inside.startsWith('..') || inside === '') continue;
    const dirty = existsSync(worktree.path) ? await dirtyPaths(worktree.path) : [];
    if (dirty.length > 0) {
      report.kept.push(`worktree ${worktree.path} (uncommitted: ${dirty.slice(0, 5).join(', ')})`);
      continue;
    }
    await gitOrThrow(dir, ['worktree', 'remove', '--force', worktree.path]);
    record({ event: 'worktree_removed', path: worktree.path });
    report.removed.push(worktree.path);
  }
  await git(dir, ['worktree', 'prune']);
  if (existsSync(root) && readdirSync(root).length === 0) rmdirSync(root);
  const checkedOut = new Set((await listWorktrees(dir)).map((w) => w.branch));
  const tasks = linesOf((await git(dir, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${integration}${TASK_SEPARATOR}*`])).stdout);
  for (const branch of tasks) await deleteIfContained(dir, branch, integration, checkedOut, report, record);
  // The integration branch goes once the branch checked out in the project holds all of it.
  if (tasks.every((b) => report.deleted.includes(b))) await deleteIfContained(dir, integration, 'HEAD', checkedOut, report, record);
  return report;
}

// Deletes `branch` only when every commit of it is in `target` and no worktree has it checked out.
async function deleteIfContained(dir: string, branch: string, target: string, checkedOut: Set<string>, report: CleanReport, record: (event: Parameters<typeof appendEvent>[2]) => void): Promise<void> {
  const tip = await commitOf(dir, `refs/heads/${branch}`);
  if (!tip) return;
  if (checkedOut.has(branch)) return void report.kept.push(`${branch} (checked out in a kept worktree)`);
  if (!(await isAncestor(dir, tip, target))) {
    const count = (await git(dir, ['rev-list', '--count', `${target}..${tip}`])).stdout;
    return void report.kept.push(`${branch} (${count} commit(s) not in ${target === 'HEAD' ? 'your branch' : target})`);
  }
  await gitOrThrow(dir, ['update-ref', '-d', `refs/heads/${branch}`, tip]);
  record({ event: 'branch_deleted', branch, commit: tip });
  report.deleted.push(branch);
}
