// The first half of `team cancel`: a live orchestrator is asked (request file + SIGTERM) and does the
// shutdown while this process waits for the end. It reads the run's start and end records and the
// lock, never the log, and imports nothing heavy: the build bundles it apart (src/commands/light/cancel.ts), so
// that the request goes out as soon as node has started. When no orchestrator is left to ask, the
// caller sweeps (cancel.ts).
import { watch, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';
import { readRegularFile } from '../../sys/regular-file.js';
import { validateId } from '../../log/guards.js';
import { readRunEnd, readStartedGrace } from '../../log/run-marks.js';
import { resolveRun, type RunPaths } from '../../log/write.js';
import { writeCancelRequest } from '../../cancel/request.js';
import { holderStillAlive, inOtherNamespace, liveHolder, signalHolder, type LockHolder } from '../../store/files/lock.js';
import { makeProgress, type Progress } from '../../session/progress.js';
import { optionalString, parseFlags, type ParsedArgs } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProjectDir } from '../args/project-dir.js';

// How often the orchestrator's liveness is checked while it shuts down (a signal to pid 0, no log read).
const LIVENESS_MS = 50;
// A missed file-system notice costs at most this much: the end records are looked up again.
const RECHECK_MS = 1_000;
// Beyond the grace period: time for SIGTERM, SIGKILL, the handoff and the last record.
const EXTRA_WAIT_MS = 20_000;
// The default grace, for a run whose start record does not say.
const DEFAULT_GRACE_MS = 15_000;

// No orchestrator is left to ask: what the sweep needs to take the run over.
export interface OrchestratorGone {
  paths: RunPaths & { runId: string };
  args: ParsedArgs;
  progress: Progress;
  force: boolean;
}

// The run is in a PostgreSQL store (--store, or team.store in the project's config): the whole CLI cancels it.
export interface OnStore {
  store: true;
  args: ParsedArgs;
}

// Asks the live orchestrator of the latest or named run to cancel it and waits for the end; returns
// the exit code, or what the sweep needs when no orchestrator is (or is any longer) there. A run
// that already ended is said so, and nothing changes.
export async function askOrchestrator(argv: string[]): Promise<number | OrchestratorGone | OnStore> {
  const cmd = 'team cancel';
  const args = parseFlags(argv, FLAGS.cancel, cmd);
  const dir = openProjectDir(args);
  if (optionalString(args, 'store') !== undefined || namesStore(dir, optionalString(args, 'config'))) return { store: true, args };
  const runId = optionalString(args, 'run');
  const paths = resolveRun(dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const force = args.values.force === true;
  const progress = makeProgress({ json: args.values.json === true });
  const ended = readRunEnd(paths, paths.runId);
  if (ended) {
    progress.emit({ type: 'cancel.noop', run: paths.runId, status: ended }, `run ${paths.runId} already ended ${ended}; nothing to cancel, nothing changed`);
    return 0;
  }
  const holder = liveHolder(paths);
  if (holder) {
    askHolder(paths, holder, force, progress);
    const deadline = Date.now() + (force ? 0 : (readStartedGrace(paths) ?? DEFAULT_GRACE_MS)) + EXTRA_WAIT_MS;
    const now = await waitForEnd(paths, holder, deadline);
    if (now === 'cancelled') {
      progress.emit({ type: 'cancel.done', run: paths.runId }, `run ${paths.runId} cancelled`);
      return 0;
    }
    if (holderStillAlive(paths, holder)) {
      progress.emit({ type: 'cancel.pending', run: paths.runId }, `run ${paths.runId} is still shutting down (status ${now ?? 'cancelling'}); \`team status\` shows its progress`);
      return 1;
    }
    if (now) {
      // The orchestrator ended the run some other way before the request reached it.
      progress.emit({ type: 'cancel.noop', run: paths.runId, status: now }, `run ${paths.runId} already ended ${now}; nothing to cancel, nothing changed`);
      return 0;
    }
  }
  return { paths, args, progress, force };
}

// Leaves the request and signals the holder; a holder in another pid namespace, whose pid names
// no process of ours, finds the request itself.
function askHolder(paths: RunPaths & { runId: string }, holder: LockHolder, force: boolean, progress: Progress): void {
  const forced = force ? ' (forced)' : '';
  if (inOtherNamespace(holder)) {
    writeCancelRequest(paths.runDir, { by: 'team cancel', force, signalled: false });
    progress.emit(
      { type: 'cancel.sent', run: paths.runId, pid: holder.pid, force, namespace: holder.pidNs },
      `the orchestrator runs in another process namespace (pid ${holder.pid} there); asked it to cancel run ${paths.runId}${forced}; waiting`,
    );
    return;
  }
  writeCancelRequest(paths.runDir, { by: 'team cancel', force });
  // Gone in between: the wait below sees it and the sweep takes over.
  signalHolder(holder, 'SIGTERM');
  progress.emit({ type: 'cancel.sent', run: paths.runId, pid: holder.pid, force }, `asked orchestrator pid ${holder.pid} to cancel run ${paths.runId}${forced}; waiting`);
}

// Whether the project's config names a PostgreSQL store (a look at its JSON only: the whole CLI
// validates it). The light start must not cancel a run of the files when the runs are in a store.
function namesStore(dir: string, configFlag: string | undefined): boolean {
  // Read as the whole CLI reads it (config/load.ts), so that neither blocks on a FIFO.
  const reading = readRegularFile(configFlag === undefined ? join(dir, '.team', 'config.json') : resolve(dir, configFlag), 1024 * 1024, { within: configFlag === undefined ? dir : '/' });
  if (!reading.ok) return false;
  try {
    const config = JSON.parse(reading.text) as { team?: { store?: unknown } };
    return config.team?.store !== undefined;
  } catch {
    return false;
  }
}

// Resolves with the run's end record once it is written (watched in events/), or with what is
// there when the orchestrator is gone or the deadline passed.
function waitForEnd(paths: RunPaths & { runId: string }, holder: LockHolder, deadline: number): Promise<ReturnType<typeof readRunEnd>> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    let lastCheck = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      watcher?.close();
      clearInterval(timer);
      resolve(readRunEnd(paths, paths.runId));
    };
    const lookForEnd = () => {
      lastCheck = Date.now();
      if (!done && readRunEnd(paths, paths.runId)) finish();
    };
    const timer = setInterval(() => {
      if (!holderStillAlive(paths, holder) || Date.now() >= deadline) finish();
      else if (Date.now() - lastCheck >= RECHECK_MS) lookForEnd();
    }, LIVENESS_MS);
    try {
      watcher = watch(paths.eventsDir, (_type, name) => {
        if (typeof name === 'string' && name.includes('-run_')) lookForEnd();
      });
    } catch {
      // No notices on this file system: the periodic look-up still finds the end.
    }
    lookForEnd();
  });
}
