// `team resume [--run ID] [--retry-interrupted]`: continues a run from its event log.
import { validateId } from '../log/guards.js';
import { resolveRun } from '../log/write.js';
import { UsageError } from '../sys/errors.js';
import { driveRun } from '../run/drive.js';
import { stopFinishedLeftovers } from '../attempt/attempt.js';
import { probeEventLog } from '../run/event-log.js';
import { makeRunProgress } from '../views/watch/run-progress.js';
import { takeOver } from '../run/takeover.js';
import { assertGitWritable } from '../run/writable.js';
import type { RunSession } from '../run/session.js';
import { killServer } from '../../workers/tmux/index.js';
import { loadRunView } from '../log/read-view.js';
import { optionalString, parseFlags } from './args/args.js';
import { detachRun } from '../run/detach.js';
import { FLAGS } from './args/flags.js';
import { describeStage } from '../views/status/render.js';
import { openProject } from './args/project.js';
import { storeUrlOf } from '../store/store-url.js';
import { OUTCOME_EXIT, reportEnd } from './run.js';

// Resumes the latest or named run; returns the exit code of how it ends.
export async function resumeCommand(argv: string[]): Promise<number> {
  const cmd = 'team resume';
  const args = parseFlags(argv, FLAGS.resume, cmd);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  const storeUrl = storeUrlOf(optionalString(args, 'store'), project.config);
  if (storeUrl !== undefined) {
    if (args.values.detach) {
      const [{ storeRunPaths }, { storeLog }, { openStore, pickRun }] = await Promise.all([import('../run/store-run.js'), import('./store/detach.js'), import('./store/open.js')]);
      const store = await openStore(storeUrl, cmd);
      const id = await pickRun(store, storeUrl, runId === undefined ? undefined : validateId(runId, '--run')).finally(() => store.close());
      const childArgv = ['resume', ...argv.filter((a) => a !== '--detach'), ...(runId === undefined ? ['--run', id] : [])];
      return detachRun({ argv: childArgv, paths: storeRunPaths(project.dir, id), runId: id, creates: false, json: args.values.json === true, log: await storeLog(storeUrl, id) });
    }
    const progress = makeRunProgress({ json: args.values.json === true, projectDir: project.dir });
    const { resumeStoreRun } = await import('./store/resume-cancel.js');
    return resumeStoreRun(storeUrl, runId === undefined ? undefined : validateId(runId, '--run'), project, progress, args.values['retry-interrupted'] === true);
  }
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  if (args.values.detach) {
    refuseEnded(loadRunView(paths, project.dir).status, paths.runId);
    const childArgv = ['resume', ...argv.filter((a) => a !== '--detach'), ...(runId === undefined ? ['--run', paths.runId] : [])];
    return detachRun({ argv: childArgv, paths, runId: paths.runId, creates: false, json: args.values.json === true });
  }
  const progress = makeRunProgress({ json: args.values.json === true, projectDir: project.dir });
  probeEventLog(paths, paths.runId);
  const { session, replay, view, release } = takeOver(paths, project, progress, cmd);
  try {
    if (ENDED.has(view.status)) await endLeftovers(session);
    refuseEnded(view.status, paths.runId);
    if (session.isolation.active) assertGitWritable(project.dir, paths.runId);
    progress.emit({ type: 'run.resumed', run: paths.runId, state: replay.snapshot.value }, `teamline: resuming run ${paths.runId} at ${describeStage(view)}${view.uncertain.length ? ` (${view.uncertain.length} attempt(s) left running to reconcile)` : ''}`);
    const outcome = await driveRun(session, { replay, retryInterrupted: args.values['retry-interrupted'] === true });
    if (outcome.kind === 'stopped') progress.emit({ type: 'decision', reason: outcome.reason }, `teamline: stopped for a decision: ${outcome.reason}\n  \`team status --run ${paths.runId}\` lists the attempts.`);
    reportEnd(paths, project.dir, outcome, progress);
    return OUTCOME_EXIT[outcome.kind];
  } finally {
    release();
  }
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

// A run that ended has nothing to resume; what a crash right after its end left running (its tmux
// server, a process group its orchestrator had not seen go, an escapee of a finished attempt) is
// ended all the same, as the orchestrator would have. Only what the log recorded, and only while it
// is still ours.
async function endLeftovers(session: RunSession): Promise<void> {
  const { registry } = session;
  await Promise.all(registry.all().map((handle) => registry.backendOf(handle).stop(handle, { graceMs: 0 }).catch(() => undefined)));
  // The escapees of its last attempts: stopped once their ends were recorded, so a crash can come first.
  await stopFinishedLeftovers(session).catch(() => undefined);
  if (session.keepPanes) return;
  for (const socketDir of registry.tmuxSocketDirs()) await killServer(session.runId, { socketDir }).catch(() => undefined);
}

function refuseEnded(status: string, runId: string): void {
  if (status === 'cancelled') throw new UsageError(`run ${runId} was cancelled, and a cancelled run stays cancelled; start a new run instead`);
  if (status === 'cancelling') throw new UsageError(`run ${runId} is being cancelled; \`team cancel --run ${runId}\` finishes the cancel`);
  if (status === 'completed' || status === 'failed') throw new UsageError(`run ${runId} already ended ${status}; there is nothing to resume`);
}
