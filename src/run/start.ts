// Starts a new run: the run folder, the lock, run_started, then the pipeline.
import type { TeamConfig } from '../../config/schema.js';
import type { EventOf, IsolationRecord, Limits, NewEvent } from '../log/schema.js';
import { createRun, runPaths, type RunPaths } from '../log/write.js';
import { makeRunLogger } from '../sys/logger.js';
import type { Routing } from './agents.js';
import { driveRun, type DriveOutcome } from './drive.js';
import { acquireLock } from '../store/file-lock.js';
import type { Progress } from './progress.js';
import { inputOf } from './replay.js';
import { makeSession } from './session.js';
import { chooseIsolation, forRun, openIsolation } from '../isolation/start.js';
import { assertRunsWritable } from './writable.js';

export interface StartRequest {
  /** The id the run is created with (a detached start chose it); default a new one. */
  runId?: string;
  projectDir: string;
  config: TeamConfig;
  configFile?: string;
  mode: 'team' | 'ralph';
  task: string;
  workers: number;
  routing: Routing;
  workerMode: 'headless' | 'tmux';
  keepPanes: boolean;
  progress: Progress;
  session: { session: string; parent_session: string };
  /** --land: bring the integration branch into the user's branch when the run completes. */
  land?: boolean;
}

// Creates the run and drives it to its end (or a stop for a human decision).
export async function startRun(request: StartRequest): Promise<{ outcome: DriveOutcome; paths: RunPaths; runId: string }> {
  const { config, routing } = request;
  // Decided before anything is written: `worktree` asked for outside git is refused with nothing made.
  const isolation = await chooseIsolation(request.projectDir, config, request.workers, request.land === true);
  assertRunsWritable(request.projectDir);
  const record = createRun(
    request.projectDir,
    { profile: 'default', stage: 'team-plan', status: 'running', ...request.session, task: request.task, workers: request.workers, agentType: routing.agentType, mode: request.mode },
    { fsync: config.team.fsync },
    request.runId,
  );
  const paths = runPaths(request.projectDir, record.run_id);
  const release = acquireLock(paths, `team ${request.mode === 'ralph' ? 'ralph ' : ''}run`);
  try {
    const limits = limitsOf(config);
    request.progress.emit({ type: 'run.started', run: record.run_id, runDir: paths.runDir }, `teamline run ${record.run_id} (${request.mode}, ${request.workers} workers) in ${paths.runDir}`);
    const session = makeSession({
      runId: record.run_id,
      paths,
      projectDir: request.projectDir,
      config,
      configFile: request.configFile,
      log: makeRunLogger(paths.logFile),
      progress: request.progress,
      mode: request.workerMode,
      keepPanes: request.keepPanes,
      workers: request.workers,
      run: record,
      events: [],
      sessionIds: request.session,
      limits,
    });
    const started = session.events.append(runStartedRecord(request, limits, { workerMode: request.workerMode, keepPanes: request.keepPanes, isolation: forRun(isolation, record.run_id) })) as EventOf<'run_started'>;
    session.isolation.note(started);
    await openIsolation(session);
    const outcome = await driveRun(session, { input: inputOf(started) });
    return { outcome, paths, runId: record.run_id };
  } finally {
    release();
  }
}

// The limits a run starts with (run_started): the config's now, kept for the run's whole life.
export function limitsOf(config: TeamConfig): Limits {
  return {
    maxTasks: config.team.maxTasks,
    maxFixLoops: config.team.maxFixLoops,
    maxTaskAttempts: config.team.maxTaskAttempts,
    maxIterations: config.ralph.maxIterations,
    statusCheckMs: config.watchdog.statusCheckMs,
    reassignMs: config.watchdog.reassignMs,
    shutdownTimeoutMs: config.team.shutdownTimeoutMs,
  };
}

// A new run's first record: what it was started with.
export function runStartedRecord(request: StartRequest, limits: Limits, where: { workerMode: 'headless' | 'tmux'; keepPanes: boolean; isolation: IsolationRecord }): NewEvent {
  const { config, routing } = request;
  return {
    event: 'run_started',
    mode: request.mode,
    task: request.task,
    workers: request.workers,
    agentType: routing.agentType,
    limits,
    gates: config.verify.commands,
    agents: routing.agents,
    defaultAgent: routing.defaultAgent,
    ...request.session,
    ...where,
    // Each worker keeps to the tasks planned for it while it has one ready: fewer reassignments.
    schedule: 'own-first',
  };
}
