// `team cancel [--run ID] [--force]`: one cancel path, from any shell. A live orchestrator is asked
// (request file + SIGTERM) and does the shutdown; when it is gone, this process takes the run over
// and does the same shutdown from the log (the orphan sweep).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateId } from '../checkpoint/guards.js';
import { resolveRun } from '../checkpoint/store.js';
import { isProcessAlive } from '../../workers/proc.js';
import { CANCEL_REQUEST_FILE, driveRun } from '../runtime/drive.js';
import { liveHolder } from '../runtime/lock.js';
import { makeProgress } from '../runtime/progress.js';
import { takeOver } from '../runtime/takeover.js';
import { loadRunView } from '../runtime/view.js';
import { optionalString, parseFlags } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';

// How often the run's log is read while a live orchestrator shuts down.
const POLL_MS = 100;
// Beyond the grace period: time for SIGTERM, SIGKILL, the handoff and the last record.
const EXTRA_WAIT_MS = 20_000;

// Cancels the latest or named run; cancelling a run that already ended says so and changes nothing.
export async function cancelCommand(argv: string[]): Promise<number> {
  const cmd = 'team cancel';
  const args = parseFlags(argv, { ...PROJECT_FLAGS, run: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } }, cmd);
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const force = args.values.force === true;
  const progress = makeProgress({ json: args.values.json === true });
  const status = loadRunView(paths, project.dir).status;
  if (status === 'completed' || status === 'failed' || status === 'cancelled') {
    progress.emit({ type: 'cancel.noop', run: paths.runId, status }, `run ${paths.runId} already ended ${status}; nothing to cancel, nothing changed`);
    return 0;
  }
  const holder = liveHolder(paths);
  if (holder) {
    writeFileSync(join(paths.runDir, CANCEL_REQUEST_FILE), JSON.stringify({ by: 'team cancel', force }));
    process.kill(holder.pid, 'SIGTERM');
    progress.emit({ type: 'cancel.sent', run: paths.runId, pid: holder.pid, force }, `asked orchestrator pid ${holder.pid} to cancel run ${paths.runId}${force ? ' (forced)' : ''}; waiting`);
    const deadline = Date.now() + (force ? 0 : project.config.team.shutdownTimeoutMs) + EXTRA_WAIT_MS;
    while (Date.now() < deadline && isProcessAlive(holder.pid, holder.pidStart)) {
      if (loadRunView(paths, project.dir).status === 'cancelled') break;
      await sleep(POLL_MS);
    }
    const now = loadRunView(paths, project.dir).status;
    if (now === 'cancelled') {
      progress.emit({ type: 'cancel.done', run: paths.runId }, `run ${paths.runId} cancelled`);
      return 0;
    }
    if (isProcessAlive(holder.pid, holder.pidStart)) {
      progress.emit({ type: 'cancel.pending', run: paths.runId }, `run ${paths.runId} is still shutting down (status ${now}); \`team status\` shows its progress`);
      return 1;
    }
  }
  return sweep(paths, project, progress, force);
}

// The orchestrator is gone: take the run over and cancel it through the same machine path.
async function sweep(paths: ReturnType<typeof resolveRun>, project: ReturnType<typeof openProject>, progress: ReturnType<typeof makeProgress>, force: boolean): Promise<number> {
  const { session, replay, release } = takeOver(paths, project, progress, 'team cancel');
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
