// team.isolation at a run's start: worktrees or the shared checkout, decided once and recorded in
// run_started; with worktrees, the integration branch `team/<run>` is made from HEAD at once.
import type { TeamConfig } from '../../config/schema.js';
import type { IsolationRecord } from '../log/schema.js';
import { UsageError } from '../sys/errors.js';
import { dirtyPaths, probeRepo } from '../git/repo.js';
import { gitWriteProblem } from '../git/team-exclude.js';
import type { IsolationParts } from '../session/isolation.js';
import { watchCheckout } from './watch.js';
import { saveCheckout } from './saved.js';
import { ensureIntegration } from './integration.js';
import { worktreesRecord } from '../session/worktree-root.js';

// The integration branch of a run.
export function integrationBranch(runId: string): string {
  return `team/${runId}`;
}

// Worktrees when the config says so, or (unset) when the project is a git repository with a commit
// and more than one worker runs; else the shared checkout, with the reason. `worktree` asked for
// where git cannot give it is bad input.
export async function chooseIsolation(projectDir: string, config: TeamConfig, workers: number, land: boolean): Promise<IsolationRecord> {
  const asked = config.team.isolation;
  if (asked === 'none') return { mode: 'none', reason: 'team.isolation is "none"' };
  const repo = await probeRepo(projectDir);
  if (repo.kind === 'none') {
    if (asked === 'worktree') throw new UsageError(`team.isolation: "worktree" needs a git repository with a commit, and ${repo.reason}`);
    return { mode: 'none', reason: repo.reason };
  }
  if (asked === undefined && workers < 2) return { mode: 'none', reason: 'one worker shares the checkout with no one' };
  const readOnly = gitWriteProblem(repo.top);
  if (readOnly !== undefined) {
    if (asked === 'worktree') throw new UsageError(`team.isolation: "worktree" needs a git repository that can be written, and ${readOnly}`);
    return { mode: 'none', reason: readOnly };
  }
  return {
    mode: 'worktree',
    reason: asked === 'worktree' ? 'team.isolation is "worktree"' : `a git repository and ${workers} workers`,
    base: repo.head,
    userBranch: repo.branch,
    prefix: repo.prefix,
    ...(land ? { land: true } : {}),
  };
}

// The record of a run: with worktrees, its integration branch named after the run and the folder
// of its worktrees (outside the project when the state folder can be written).
export function forRun(record: IsolationRecord, runId: string, projectDir: string): IsolationRecord {
  if (record.mode !== 'worktree') return record;
  return { ...record, branch: integrationBranch(runId), ...worktreesRecord(projectDir, runId) };
}

// Creates the integration branch and its worktree (with worktrees) and says which isolation runs.
export async function openIsolation(run: IsolationParts): Promise<void> {
  const iso = run.isolation;
  const record = iso.record;
  if (!record) return;
  if (!iso.active) {
    run.progress.emit({ type: 'isolation', mode: 'none', reason: record.reason }, `isolation: none — workers share the project folder (${record.reason})`);
    return saveCheckout(run);
  }
  await iso.serial(async () => {
    await watchCheckout(run);
    await ensureIntegration(run);
  });
  const dirty = (await dirtyPaths(iso.projectDir, false)).filter((path) => !path.startsWith('.checkpoints/'));
  if (dirty.length > 0) {
    run.progress.emit({ type: 'isolation.dirty', files: dirty }, `isolation: your uncommitted changes (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}) are not in the workers' worktrees: they start from the last commit`);
  }
  const from = record.userBranch ? `${record.userBranch} at ${record.base!.slice(0, 10)}` : record.base!.slice(0, 10);
  run.progress.emit(
    { type: 'isolation', mode: 'worktree', branch: record.branch, base: record.base },
    `isolation: worktree — each worker in its own worktree (in ${iso.worktreesFolder}); merged work on ${record.branch} (from ${from}); your branch and working tree are not touched`,
  );
  if (record.worktreesWhy) run.progress.emit({ type: 'isolation.worktrees', folder: iso.worktreesFolder, why: record.worktreesWhy }, `isolation: the worktrees are in the project's .team/worktrees/ (your test runner may see them there): ${record.worktreesWhy}`);
}
