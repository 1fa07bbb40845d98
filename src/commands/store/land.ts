// `team land --store URL` (or team.store): lands a completed run of the PostgreSQL store in this
// clone. Its integration branch is on the run's git remote (team.remote): fetched as a
// remote-tracking ref, merged as `team land` merges a local one, and the landing recorded in the
// store's log under the run's writer lock (refused, exit 2, while a writer holds it).
import { EXIT, TeamError, UsageError } from '../../sys/errors.js';
import { fetchTracking } from '../../git/remote.js';
import { foldBranches } from '../../isolation/view.js';
import { landRun } from '../../isolation/land.js';
import type { Progress } from '../../run/progress.js';
import { takeWriterLock } from '../../store/pg-writer-lock.js';
import { landableBranches, refuseUnlanded, tellLanded } from '../land.js';
import { foldStoreRun, openStore, pickRun } from './open.js';

export async function landStoreRun(url: string, runId: string | undefined, projectDir: string, progress: Progress, acknowledge = false): Promise<void> {
  const store = await openStore(url, 'land');
  try {
    const id = await pickRun(store, url, runId);
    const read = await store.read(id);
    refuseUnlanded(id, foldStoreRun(read, projectDir).status);
    const branches = landableBranches(id, foldBranches(read.events));
    const remote = branches.remote;
    if (remote === undefined) throw new UsageError(`team land: run ${id} ran without team.remote: its workers' code never left their machines, and there is no branch to land`);
    const fetched = await fetchTracking(projectDir, remote, branches.branch!);
    if (!fetched.ref) throw new TeamError(`team land: ${branches.branch} could not be fetched from "${remote}" (${fetched.result.stderr || `git exited ${fetched.result.code}`}); nothing was changed`, EXIT.failed);
    const lock = await takeWriterLock(url, id, `teamline land of ${id} pid ${process.pid}`);
    try {
      const outcome = await landRun(projectDir, id, branches, { ref: fetched.ref, record: async (event) => void (await store.append(id, [event])) }, acknowledge);
      tellLanded(progress, id, branches, outcome);
    } finally {
      await lock.release();
    }
  } finally {
    await store.close();
  }
}
