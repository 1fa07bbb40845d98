// `team resume` and `team cancel` of a run in the PostgreSQL store (--store URL or team.store), from
// any machine: resume takes the run's writer lock and goes on from the store's log; cancel asks the
// live writer through a request (it and the run's workers hear it at once), or, with no writer, takes
// the lock and does the cancel itself from the log.
import { describeStage } from '../../views/status/render.js';
import { UsageError } from '../../sys/errors.js';
import { driveRun } from '../../run/drive.js';
import type { Progress } from '../../run/progress.js';
import { takeOverStore } from '../../run/store-run.js';
import { writeRequest } from '../../store/pg-requests.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { openStore, pickRun } from './open.js';
import type { Project } from '../args/project.js';
import { OUTCOME_EXIT, reportViewEnd } from '../run.js';

// How often `team cancel` looks for the run's end while its writer shuts it down.
const END_POLL_MS = 200;
// Beyond the grace period: time for the workers to stop their agents and the writer to record it.
const EXTRA_WAIT_MS = 30_000;

// Resumes the run from the store's log; returns the exit code of how it ends.
export async function resumeStoreRun(url: string, runId: string | undefined, project: Project, progress: Progress, retryInterrupted: boolean): Promise<number> {
  const id = await withStore(url, 'team resume', (store) => pickRun(store, url, runId));
  const taken = await takeOverStore(url, id, project, progress);
  try {
    const { session, replay, view } = taken;
    if (view.status === 'completed' || view.status === 'failed' || view.status === 'cancelled') throw new UsageError(`run ${id} already ended ${view.status}; there is nothing to resume`);
    progress.emit({ type: 'run.resumed', run: id, state: replay.snapshot.value }, `teamline: resuming run ${id} from the store at ${describeStage(view)}${view.uncertain.length ? ` (${view.uncertain.length} attempt(s) on workers to hear from)` : ''}`);
    const outcome = await driveRun(session, { replay, retryInterrupted });
    if (outcome.kind === 'stopped') progress.emit({ type: 'decision', reason: outcome.reason }, `teamline: stopped for a decision: ${outcome.reason}`);
    reportViewEnd(session.events.fold.view(project.dir), session.paths.runDir, outcome, progress);
    return OUTCOME_EXIT[outcome.kind];
  } finally {
    await taken.close();
  }
}

// Cancels the run: through its live writer, else by taking it over; 0 once it is cancelled.
export async function cancelStoreRun(url: string, runId: string | undefined, project: Project, progress: Progress, force: boolean): Promise<number> {
  const asked = await withStore(url, 'team cancel', async (store) => {
    const id = await pickRun(store, url, runId);
    const ended = await store.endOf(id);
    if (ended) {
      progress.emit({ type: 'cancel.noop', run: id, status: ended }, `run ${id} already ended ${ended}; nothing to cancel, nothing changed`);
      return { id, code: 0 };
    }
    if (!(await hasWriter(store.db, id))) return { id };
    await writeRequest(store, id, 'cancel', { by: 'team cancel', force });
    progress.emit({ type: 'cancel.sent', run: id, force }, `asked the writer of run ${id} to cancel it${force ? ' (forced)' : ''}; waiting`);
    const deadline = Date.now() + (force ? 0 : project.config.team.shutdownTimeoutMs) + EXTRA_WAIT_MS;
    for (;;) {
      const now = await store.endOf(id);
      if (now === 'cancelled') {
        progress.emit({ type: 'cancel.done', run: id }, `run ${id} cancelled`);
        return { id, code: 0 };
      }
      if (now) {
        progress.emit({ type: 'cancel.noop', run: id, status: now }, `run ${id} already ended ${now}; nothing to cancel, nothing changed`);
        return { id, code: 0 };
      }
      // The writer went away meanwhile: this process does the cancel.
      if (!(await hasWriter(store.db, id))) return { id };
      if (Date.now() >= deadline) {
        progress.emit({ type: 'cancel.pending', run: id }, `run ${id} is still shutting down; \`team status --store …\` shows its progress`);
        return { id, code: 1 };
      }
      await new Promise((resolve) => setTimeout(resolve, END_POLL_MS));
    }
  });
  if (asked.code !== undefined) return asked.code;
  const taken = await takeOverStore(url, asked.id, project, progress);
  try {
    progress.emit({ type: 'cancel.sweep', run: asked.id }, `no writer holds run ${asked.id}: cancelling it from the store's log`);
    if (force) taken.session.cancel.forceStops();
    const outcome = await driveRun(taken.session, { replay: taken.replay, retryInterrupted: false, cancel: { by: 'team cancel (no writer)', force } });
    progress.emit({ type: 'cancel.done', run: asked.id, outcome: outcome.kind }, `run ${asked.id} ${outcome.kind}`);
    return outcome.kind === 'cancelled' ? 0 : 1;
  } finally {
    await taken.close();
  }
}

async function withStore<T>(url: string, command: string, work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore(url, command);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
