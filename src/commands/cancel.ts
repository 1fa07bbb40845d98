// `team cancel [--run ID] [--force]`: one cancel path, from any shell. A live orchestrator is asked
// and does the shutdown (cancel-ask.ts); when it is gone, this process takes the run over and does
// the same shutdown from the log (the orphan sweep).
import type { RunPaths } from '../log/write.js';
import { DeterminismError } from '../sys/errors.js';
import type { Progress } from '../run/progress.js';
import type { ParsedArgs } from './args/args.js';
import { askOrchestrator } from './light/cancel-ask.js';

// How many times a cancel that finds the run taken by another orchestrator between its look and its
// takeover (a resume) asks that one in turn, before it gives up as any takeover would.
const ROUNDS = 5;

// Cancels the latest or named run; cancelling a run that already ended says so and changes nothing.
// A cancel always wins a race: an orchestrator that took the run first is asked, as from any shell.
export async function cancelCommand(argv: string[]): Promise<number> {
  for (let round = 1; ; round++) {
    const asked = await askOrchestrator(argv);
    if (typeof asked === 'number') return asked;
    if ('store' in asked) return cancelOnStore(asked.args);
    const swept = await sweep(asked.paths, asked.args, asked.progress, asked.force, round < ROUNDS);
    if (swept !== TAKEN) return swept;
  }
}

// The sweep found the run's lock taken by a live orchestrator since the look for one.
const TAKEN = 'taken';
// Test only: a pause between the look for a live orchestrator and the takeover, the window in which
// a resume can take the run first. Unset in real use.
const TEST_SWEEP_DELAY_MS = Number(process.env.TEAMLINE_TEST_SWEEP_DELAY_MS ?? 0);

// The run is in a PostgreSQL store: asked of its writer there, or cancelled from the store's log.
async function cancelOnStore(args: ParsedArgs): Promise<number> {
  const [{ openProject }, { storeUrlOf }, { optionalString }, { validateId }, { makeProgress }, { cancelStoreRun }] = await Promise.all([
    import('./args/project.js'),
    import('../store/store-url.js'),
    import('./args/args.js'),
    import('../log/guards.js'),
    import('../run/progress.js'),
    import('./store/resume-cancel.js'),
  ]);
  const project = openProject(args, { readsStore: true });
  const url = storeUrlOf(optionalString(args, 'store'), project.config)!;
  const runId = optionalString(args, 'run');
  return cancelStoreRun(url, runId === undefined ? undefined : validateId(runId, '--run'), project, makeProgress({ json: args.values.json === true }), args.values.force === true);
}

// The orchestrator is gone: take the run over and cancel it through the same machine path.
// `askAgain`: a lock taken meanwhile returns TAKEN (the caller asks its holder) instead of refusing.
async function sweep(paths: RunPaths & { runId: string }, args: ParsedArgs, progress: Progress, force: boolean, askAgain: boolean): Promise<number | typeof TAKEN> {
  const [{ openProject }, { takeOver }, { driveRun }, { HeldLockError }] = await Promise.all([import('./args/project.js'), import('../run/takeover.js'), import('../run/drive.js'), import('../run/lock.js')]);
  const project = openProject(args);
  if (TEST_SWEEP_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, TEST_SWEEP_DELAY_MS));
  let taken: ReturnType<typeof takeOver>;
  try {
    taken = takeOver(paths, project, progress, 'team cancel');
  } catch (error) {
    if (error instanceof HeldLockError && askAgain) return TAKEN;
    if (!(error instanceof DeterminismError)) throw error;
    // The log cannot be replayed, yet it names the run's workers: they are stopped all the same, and
    // the run is recorded cancelled without the machine, so that no reader calls it running.
    const { cancelUnreplayable } = await import('../cancel/stop-recorded.js');
    const { count, reason } = await cancelUnreplayable(paths, project.config, force, error.message.replace(/^determinism violation: /, ''));
    progress.emit({ type: 'cancel.done', run: paths.runId, outcome: 'cancelled' }, `run ${paths.runId} cancelled: its ${count} recorded worker(s) were stopped; ${reason}`);
    return 0;
  }
  const { session, replay, release } = taken;
  try {
    progress.emit({ type: 'cancel.sweep', run: paths.runId }, `no live orchestrator for run ${paths.runId}: shutting its workers down from the log`);
    if (force) session.cancel.forceStops();
    const outcome = await driveRun(session, { replay, retryInterrupted: false, cancel: { by: 'team cancel (orchestrator gone)', force } });
    progress.emit({ type: 'cancel.done', run: paths.runId, outcome: outcome.kind }, `run ${paths.runId} ${outcome.kind}`);
    return outcome.kind === 'cancelled' ? 0 : 1;
  } finally {
    release();
  }
}
