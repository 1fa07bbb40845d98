// Runs whose folder is gone (`rm -rf .team/runs`) but whose worktrees are still there: found in
// git's list of worktrees and in the folders of the project's worktrees (the state folder's, and
// `.team/worktrees/`), cleaned as `team clean` cleans an ended run.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ID_PATTERN } from '../log/guards.js';
import { runPaths } from '../log/write.js';
import { listWorktrees } from '../git/worktree.js';
import { cleanRunGit, type CleanReport } from './clean.js';
import { integrationBranch } from './start.js';
import { worktreesRoots } from '../session/worktree-root.js';

// The ids of `<worktrees folder>/<run>/` (a folder there, or a worktree git knows in one) with no run:
// neither its run folder nor the local folder of a run in the PostgreSQL store (`.team/store-runs/<run>`,
// src/store/pg/store.ts), whose writer keeps its integration worktree here.
export async function orphanRunIds(dir: string): Promise<string[]> {
  const roots = worktreesRoots(dir);
  const ids = new Set<string>(roots.flatMap((root) => (existsSync(root) ? readdirSync(root) : [])));
  const worktrees = await listWorktrees(dir);
  for (const root of roots) {
    for (const worktree of worktrees) {
      const inside = relative(root, worktree.path);
      if (inside !== '' && !inside.startsWith('..')) ids.add(inside.split(sep)[0]!);
    }
  }
  const known = (id: string) => existsSync(runPaths(dir, id).runJson) || existsSync(join(dir, '.team', 'store-runs', id));
  return [...ids].filter((id) => ID_PATTERN.test(id) && !known(id)).sort();
}

// Cleans what a run whose folder is gone left: there is no log to record it in.
export function cleanOrphan(dir: string, runId: string): Promise<CleanReport> {
  return cleanRunGit(dir, runId, integrationBranch(runId), () => {});
}
