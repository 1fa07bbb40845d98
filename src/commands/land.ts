// `team land [--run ID]`: merges a completed run's integration branch into your branch.
import { validateId } from '../checkpoint/guards.js';
import { resolveRun, type RunPaths } from '../checkpoint/store.js';
import { UsageError } from '../errors.js';
import { readBranches } from '../runtime/isolation-view.js';
import { landRun } from '../runtime/land.js';
import type { Progress } from '../runtime/progress.js';
import { makeProgress } from '../runtime/progress.js';
import { loadRunView } from '../runtime/view.js';
import { optionalString, parseFlags } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';

// Lands the latest or named run; exit 0 landed (or already), 2 refused, 1 a conflict.
export async function landCommand(argv: string[]): Promise<number> {
  const cmd = 'team land';
  const args = parseFlags(argv, { ...PROJECT_FLAGS, run: { type: 'string' }, json: { type: 'boolean' } }, cmd);
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const status = loadRunView(paths, project.dir).status;
  if (status !== 'completed') throw new UsageError(`${cmd}: run ${paths.runId} is ${status}; only a completed run lands`);
  await landWork(paths, paths.runId, makeProgress({ json: args.values.json === true }), project.write);
  return 0;
}

// Lands a completed run and says what happened; refusals throw with the reason.
export async function landWork(paths: RunPaths, runId: string, progress: Progress, write: { fsync: boolean }): Promise<void> {
  const branches = readBranches(paths);
  if (!branches || branches.mode !== 'worktree') throw new UsageError(`team land: run ${runId} ran without worktrees (isolation none): its work is already in the project folder`);
  const outcome = await landRun(paths, runId, branches, write);
  const line = outcome.kind === 'landed' ? `landed ${branches.branch} into ${outcome.into} (${outcome.commit.slice(0, 10)})` : `${branches.branch} is already in ${outcome.into}; nothing to do`;
  progress.emit({ type: 'land', run: runId, ...outcome, branch: branches.branch }, line);
}
