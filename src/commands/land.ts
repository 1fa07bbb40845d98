// `team land [--run ID] [--store URL]`: merges a completed run's integration branch into your branch
// (on the PostgreSQL store: fetched from the run's git remote, src/commands/store/land.ts).
import { validateId } from '../log/guards.js';
import { appendEvent, resolveRun, type RunPaths } from '../log/write.js';
import { UsageError } from '../sys/errors.js';
import { readBranches, type BranchesView } from '../isolation/view.js';
import { landRun, type LandOutcome } from '../isolation/land.js';
import { storeUrlOf } from '../store/store-url.js';
import type { Progress } from '../run/progress.js';
import { makeProgress } from '../run/progress.js';
import { loadRunView } from '../log/read-view.js';
import { optionalString, parseFlags } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// Lands the latest or named run; exit 0 landed (or already), 2 refused, 1 a conflict.
export async function landCommand(argv: string[]): Promise<number> {
  const cmd = 'team land';
  const args = parseFlags(argv, FLAGS.land, cmd);
  const project = openProject(args, { readsStore: true });
  const storeUrl = storeUrlOf(optionalString(args, 'store'), project.config);
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const progress = makeProgress({ json: args.values.json === true });
  if (storeUrl !== undefined) {
    await (await import('./store/land.js')).landStoreRun(storeUrl, named, project.dir, progress, args.values.acknowledge === true);
    return 0;
  }
  const paths = resolveRun(project.dir, named);
  const status = loadRunView(paths, project.dir).status;
  refuseUnlanded(paths.runId, status);
  await landWork(paths, paths.runId, progress, project.write, args.values.acknowledge === true);
  return 0;
}

// Only a completed run lands.
export function refuseUnlanded(runId: string, status: string): void {
  if (status !== 'completed') throw new UsageError(`team land: run ${runId} is ${status}; only a completed run lands`);
}

// The run's branches, when it ran in worktrees; refused otherwise.
export function landableBranches(runId: string, branches: BranchesView | undefined): BranchesView {
  if (!branches || branches.mode !== 'worktree') throw new UsageError(`team land: run ${runId} ran without worktrees (isolation none): its work is already in the project folder`);
  return branches;
}

// Lands a completed run and says what happened; refusals throw with the reason.
export async function landWork(paths: RunPaths, runId: string, progress: Progress, write: { fsync: boolean }, acknowledge = false): Promise<void> {
  const branches = landableBranches(runId, readBranches(paths));
  const outcome = await landRun(paths.projectDir, runId, branches, { ref: `refs/heads/${branches.branch!}`, record: (event) => void appendEvent(paths, runId, event, write) }, acknowledge);
  tellLanded(progress, runId, branches, outcome);
}

// What happened, for a person and for --json.
export function tellLanded(progress: Progress, runId: string, branches: BranchesView, outcome: LandOutcome): void {
  const line = outcome.kind === 'landed' ? `landed ${branches.branch} into ${outcome.into} (${outcome.commit.slice(0, 10)})` : `${branches.branch} is already in ${outcome.into}; nothing to do`;
  progress.emit({ type: 'land', run: runId, ...outcome, branch: branches.branch }, line);
}
