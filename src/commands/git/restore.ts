// `team restore [--run ID]`: a run under isolation none shared your checkout with its workers; this
// puts your working tree back as it was at the run's start (checkout_saved). What the tree held
// before the restore (the run's work among it) is saved first, under refs/team/<run>/before-restore,
// so a restore loses nothing either.
import { validateId } from '../../log/guards.js';
import { UsageError } from '../../sys/errors.js';
import { git, gitOrThrow } from '../../git/git.js';
import { probeRepo } from '../../git/repo.js';
import { snapshotWorkingTree } from '../../git/snapshot.js';
import { savedRef, teamlinePaths } from '../../isolation/saved.js';
import { openStore } from '../../store/open.js';
import { withStore } from '../../store/types.js';
import { makeProgress } from '../../session/progress.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';

// Restores the latest or named run's saved checkout; exit 0 restored, 2 refused (nothing saved, the run still running).
export async function restoreCommand(argv: string[]): Promise<number> {
  const cmd = 'team restore';
  const args = parseFlags(argv, FLAGS.restore, cmd);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const progress = makeProgress({ json: args.values.json === true });
  const store = await openStore(project, undefined, 'restore');
  await withStore(store, async () => {
    const id = await store.pickRun(named);
    const { view } = await store.view(id, project.dir);
    const saved = view.branches?.saved;
    if (!saved) throw new UsageError(`team restore: run ${id} saved no checkout: it ran in worktrees, or your checkout had nothing uncommitted when it started`);
    if (view.status === 'running') throw new UsageError(`team restore: run ${id} is still running in your checkout; cancel it first (team cancel --run ${id})`);
    const repo = await probeRepo(project.dir);
    if (repo.kind !== 'git') throw new UsageError(`team restore: ${repo.reason}`);
    if (!(await git(repo.top, ['cat-file', '-e', `${saved.commit}^{commit}`])).ok) throw new UsageError(`team restore: the saved commit ${saved.commit.slice(0, 10)} of ${saved.ref} is gone from the repository`);
    const kept = savedRef(id, 'before-restore');
    const own = teamlinePaths(repo.prefix);
    const keptCommit = await snapshotWorkingTree(repo.top, kept, `team: your working tree before team restore of run ${id}`, own);
    // The working tree only: every path of the saved tree as it was, and a tracked file it lacks removed; the index and HEAD stay.
    await gitOrThrow(repo.top, ['restore', `--source=${saved.commit}`, '--worktree', '--', '.', ...own.map((path) => `:(exclude)${path}`)]);
    await store.append(id, [{ event: 'checkout_restored', commit: saved.commit, kept, keptCommit }]);
    progress.emit({ type: 'restore', run: id, commit: saved.commit, kept, keptCommit }, `restored your working tree as it was at the start of run ${id} (${saved.ref}, ${saved.commit.slice(0, 10)}); what it held before is kept as ${kept} (${keptCommit.slice(0, 10)}): \`git restore --source=${kept} --worktree -- .\` puts that back`);
  });
  return 0;
}
