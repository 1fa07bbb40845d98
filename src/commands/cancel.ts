// `team cancel [--run ID] [--force] [--store URL]`: one cancel path, from any shell. A live
// orchestrator is asked and does the shutdown (of the files: light/cancel-ask.ts; on the PostgreSQL
// store: a request its writer and the run's workers hear at once); when it is gone, this process
// takes the run over and does the same shutdown from the log (the orphan sweep).
import { DeterminismError } from '../sys/errors.js';
import type { Progress } from '../session/progress.js';
import type { ParsedArgs } from './args/args.js';
import type { Project } from './args/project.js';
import { askOrchestrator } from './light/cancel-ask.js';
import { FileStore } from '../store/files/store.js';
import type { QueueStore } from '../store/queue.js';
import type { RunStore } from '../store/types.js';

// How often `team cancel` looks for the run's end while a store's writer shuts it down.
const END_POLL_MS = 200;
// Beyond the grace period: time for the workers to stop their agents and the writer to record it.
const EXTRA_WAIT_MS = 30_000;

// How many times a cancel that finds the run taken by another orchestrator between its look and its
// takeover (a resume) asks that one in turn, before it gives up as any takeover would.
const ROUNDS = 5;
// The sweep found the run's lock taken by a live orchestrator since the look for one.
const TAKEN = 'taken';
// Test only: a pause between the look for a live orchestrator and the takeover, the window in which
// a resume can take the run first. Unset in real use.
const TEST_SWEEP_DELAY_MS = Number(process.env.TEAMLINE_TEST_SWEEP_DELAY_MS ?? 0);

// Cancels the latest or named run; cancelling a run that already ended says so and changes nothing.
// A cancel always wins a race: an orchestrator that took the run first is asked, as from any shell.
export async function cancelCommand(argv: string[]): Promise<number> {
  for (let round = 1; ; round++) {
    const asked = await askOrchestrator(argv);
    if (typeof asked === 'number') return asked;
    if ('store' in asked) return cancelOnStore(asked.args);
    const { openProject } = await import('./args/project.js');
    const project = openProject(asked.args);
    if (TEST_SWEEP_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, TEST_SWEEP_DELAY_MS));
    const swept = await sweep(new FileStore(project.dir, project.write), asked.paths.runId, project, asked.progress, asked.force, round < ROUNDS);
    if (swept !== TAKEN) return swept;
  }
}

// The run is in a PostgreSQL store: asked of its writer there, or cancelled from the store's log.
async function cancelOnStore(args: ParsedArgs): Promise<number> {
  const [{ openProject }, { optionalString }, { validateId }, { makeProgress }, { openStore }, { queueOf }] = await Promise.all([
    import('./args/project.js'),
    import('./args/args.js'),
    import('../log/guards.js'),
    import('../session/progress.js'),
    import('../store/open.js'),
    import('../store/queue.js'),
  ]);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const progress = makeProgress({ json: args.values.json === true });
  const force = args.values.force === true;
  const store = await openStore(project, optionalString(args, 'store'), 'team cancel');
  // With no writer left to ask, the sweep's takeover holds the store, and closes it when it ends.
  const asked = await askWriter(store, queueOf(store)!, named, project, progress, force).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  if (asked.code === undefined) return sweep(store, asked.id, project, progress, force);
  await store.close();
  return asked.code;
}

// Asks the run's live writer through a request and waits for the end: the exit code, or no code
// when no writer is (or is any longer) there.
async function askWriter(store: RunStore, queue: QueueStore, runId: string | undefined, project: Project, progress: Progress, force: boolean): Promise<{ id: string; code?: number }> {
  const id = await store.pickRun(runId);
  const ended = await queue.endOf(id);
  if (ended) {
    progress.emit({ type: 'cancel.noop', run: id, status: ended }, `run ${id} already ended ${ended}; nothing to cancel, nothing changed`);
    return { id, code: 0 };
  }
  if (!(await store.hasWriter(id))) return { id };
  // The grace: what an attempt with the team tools gets on a team worker to end itself (src/team-worker/cancel.ts).
  await queue.requestCancel(id, { by: 'team cancel', force, grace_ms: project.config.team.shutdownTimeoutMs });
  progress.emit({ type: 'cancel.sent', run: id, force }, `asked the writer of run ${id} to cancel it${force ? ' (forced)' : ''}; waiting`);
  const deadline = Date.now() + (force ? 0 : project.config.team.shutdownTimeoutMs) + EXTRA_WAIT_MS;
  for (;;) {
    const now = await queue.endOf(id);
    if (now === 'cancelled') {
      progress.emit({ type: 'cancel.done', run: id }, `run ${id} cancelled`);
      return { id, code: 0 };
    }
    if (now) {
      progress.emit({ type: 'cancel.noop', run: id, status: now }, `run ${id} already ended ${now}; nothing to cancel, nothing changed`);
      return { id, code: 0 };
    }
    // The writer went away meanwhile: this process does the cancel.
    if (!(await store.hasWriter(id))) return { id };
    if (Date.now() >= deadline) {
      progress.emit({ type: 'cancel.pending', run: id }, `run ${id} is still shutting down; \`team status --store …\` shows its progress`);
      return { id, code: 1 };
    }
    await new Promise((resolve) => setTimeout(resolve, END_POLL_MS));
  }
}

// Nothing drives the run any more: take it over and cancel it through the same machine path.
// `askAgain`: a lock taken meanwhile by a live orchestrator returns TAKEN (the caller asks it) instead of refusing.
async function sweep(store: RunStore, id: string, project: Project, progress: Progress, force: boolean): Promise<number>;
async function sweep(store: RunStore, id: string, project: Project, progress: Progress, force: boolean, askAgain: boolean): Promise<number | typeof TAKEN>;
async function sweep(store: RunStore, id: string, project: Project, progress: Progress, force: boolean, askAgain = false): Promise<number | typeof TAKEN> {
  const [{ takeOver }, { driveRun }, { HeldLockError }, { faceOf }] = await Promise.all([import('../run/takeover.js'), import('../run/drive.js'), import('../store/files/lock.js'), import('../run/face.js')]);
  const face = faceOf(store);
  const paths = { ...store.paths(id), runId: id };
  let taken: Awaited<ReturnType<typeof takeOver>>;
  try {
    taken = await takeOver(store, id, project, progress, 'team cancel');
  } catch (error) {
    if (error instanceof HeldLockError && askAgain) return TAKEN;
    if (!face.stopsUnreplayable || !(error instanceof DeterminismError)) throw error;
    // The log cannot be replayed, yet it names the run's workers: they are stopped all the same, and
    // the run is recorded cancelled without the machine, so that no reader calls it running.
    const { cancelUnreplayable } = await import('../cancel/stop-recorded.js');
    const { count, reason } = await cancelUnreplayable(paths, project.config, force, error.message.replace(/^determinism violation: /, ''));
    progress.emit({ type: 'cancel.done', run: id, outcome: 'cancelled' }, `run ${id} cancelled: its ${count} recorded worker(s) were stopped; ${reason}`);
    return 0;
  }
  const { session, replay, release } = taken;
  try {
    progress.emit({ type: 'cancel.sweep', run: id }, face.sweepLine(id));
    if (force) session.cancel.forceStops();
    const outcome = await driveRun(session, { replay, retryInterrupted: false, cancel: { by: face.sweepBy, force } });
    progress.emit({ type: 'cancel.done', run: id, outcome: outcome.kind }, `run ${id} ${outcome.kind}`);
    return outcome.kind === 'cancelled' ? 0 : 1;
  } finally {
    await release();
  }
}
