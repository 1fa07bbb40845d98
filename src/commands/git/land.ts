// `team land [--run ID] [--store URL]`: merges a completed run's integration branch into your branch
// (a run on the PostgreSQL store: its branch fetched from the run's git remote).
import { validateId } from '../../log/guards.js';
import { EXIT, TeamError, UsageError } from '../../sys/errors.js';
import { fetchTracking } from '../../git/remote.js';
import { ownCheckoutChanges, type BranchesView } from '../../isolation/view.js';
import { landRun, type LandOutcome } from '../../isolation/land.js';
import { openStore } from '../../store/open.js';
import { withStore, type RunStore } from '../../store/types.js';
import type { Progress } from '../../session/progress.js';
import { makeProgress } from '../../session/progress.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';

// Lands the latest or named run; exit 0 landed (or already), 2 refused, 1 a conflict.
export async function landCommand(argv: string[]): Promise<number> {
  const cmd = 'team land';
  const args = parseFlags(argv, FLAGS.land, cmd);
  const project = openProject(args, { readsStore: true });
  const flag = optionalString(args, 'store');
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const progress = makeProgress({ json: args.values.json === true });
  const store = await openStore(project, flag, 'land');
  await withStore(store, () => landWork(store, named, progress, project.dir, args.values.acknowledge === true));
  return 0;
}

// Lands a completed run of the store and says what happened; refusals throw with the reason. The
// landing is recorded in the run's log; on the PostgreSQL store under the run's writer lock (refused,
// exit 2, while a writer holds it).
export async function landWork(store: RunStore, runId: string | undefined, progress: Progress, projectDir: string, acknowledge = false): Promise<void> {
  const id = await store.pickRun(runId);
  const { view } = await store.view(id, projectDir);
  refuseUnlanded(id, view.status);
  const branches = landableBranches(id, view.branches);
  const record = async (event: Parameters<RunStore['append']>[1][number]) => void (await store.append(id, [event]));
  // Branches made here are in this clone; those of a run on the store went through its remote.
  if (branches.remote === undefined) return tellLanded(progress, id, branches, await landRun(projectDir, id, branches, { ref: `refs/heads/${branches.branch!}`, record }, acknowledge));
  const ref = await fetchBranch(branches.remote, branches, projectDir);
  const lock = await store.lockWriter(id, `teamline land of ${id} pid ${process.pid}`);
  try {
    tellLanded(progress, id, branches, await landRun(projectDir, id, branches, { ref, record }, acknowledge));
  } finally {
    await lock.release();
  }
}

// The integration branch of a run on the store, fetched from its git remote as a remote-tracking ref.
async function fetchBranch(remote: string, branches: BranchesView, projectDir: string): Promise<string> {
  const fetched = await fetchTracking(projectDir, remote, branches.branch!);
  if (!fetched.ref) throw new TeamError(`team land: ${branches.branch} could not be fetched from "${remote}" (${fetched.result.stderr || `git exited ${fetched.result.code}`}); nothing was changed`, EXIT.failed);
  return fetched.ref;
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

// What happened, for a person and for --json.
export function tellLanded(progress: Progress, runId: string, branches: BranchesView, outcome: LandOutcome): void {
  const line = outcome.kind === 'landed' ? `landed ${branches.branch} into ${outcome.into} (${outcome.commit.slice(0, 10)})` : `${branches.branch} is already in ${outcome.into}; nothing to do`;
  // A fenced run's workers could not touch the checkout: what moved there is said, never asked about.
  const own = ownCheckoutChanges(branches);
  progress.emit({ type: 'land', run: runId, ...outcome, branch: branches.branch, ...(own.length > 0 && { own }) }, [...own, line].join('\n'));
}
