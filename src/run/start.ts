// Starts a new run in its store: the run, its writer's lock, run_started, then the pipeline.
import { resolve } from 'node:path';
import type { TeamConfig } from '../../config/schema.js';
import type { Budget, CostMode, EventOf, IsolationRecord, Limits, NewEvent } from '../log/schema.js';
import { chooseModels } from '../attempt/prepare/models.js';
import type { RunPaths } from '../log/write.js';
import type { RunView } from '../log/fold/fold.js';
import { makeRunId } from '../log/time.js';
import type { RunStore } from '../store/types.js';
import type { Routing } from '../attempt/prepare/agents.js';
import { driveRun, type DriveOutcome } from './drive.js';
import type { Progress } from '../session/progress.js';
import { inputOf } from '../session/replay.js';
import { faceOf, type RunFace } from './face.js';
import { liveTelemetry } from './telemetry.js';

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
  /** --cost-mode: wins over team.costMode. */
  costMode?: CostMode;
}

// Creates the run in `store` and drives it to its end (or a stop for a human decision). On the
// PostgreSQL store its attempts go to team workers.
export async function startRun(request: StartRequest, store: RunStore): Promise<{ outcome: DriveOutcome; paths: RunPaths; runId: string; view: RunView; face: RunFace }> {
  const { config, routing } = request;
  const runId = request.runId ?? makeRunId();
  const face = faceOf(store);
  const ask = { ...request, land: request.land === true };
  // Decided before anything is written: an isolation that cannot be had is refused with nothing made.
  const isolation = await face.isolation(ask, runId);
  face.assertWritable(request.projectDir);
  // This machine's attempts run fenced where they can; a required fence that cannot be built refuses the run here.
  const fence = face.fence(ask);
  const record = await store.createRun({ profile: 'default', stage: 'team-plan', status: 'running', ...request.session, task: request.task, workers: request.workers, agentType: routing.agentType, mode: request.mode }, runId);
  const hold = await face.hold(runId, `team ${request.mode === 'ralph' ? 'ralph ' : ''}run`, config);
  try {
    const { paths } = hold;
    const limits = limitsOf(config);
    request.progress.emit({ type: 'run.started', run: runId, runDir: paths.runDir }, `teamline run ${runId} (${request.mode}, ${request.workers} workers) in ${face.where(paths)}`);
    const { mode, keepPanes } = face.workers(request);
    const observe = liveTelemetry(runId, config, request.progress, []);
    const session = hold.session({ runId, projectDir: request.projectDir, config, configFile: request.configFile, progress: request.progress, mode, keepPanes, workers: request.workers, run: record, sessionIds: request.session, limits, ...(observe && { observe }) });
    const started = session.events.append({ ...runStartedRecord(request, limits, { workerMode: mode, keepPanes, isolation }), ...(fence && { fence }) }) as EventOf<'run_started'>;
    session.isolation.note(started);
    await face.openIsolation(session);
    const outcome = await driveRun(session, { input: inputOf(started) });
    return { outcome, paths, runId, view: session.events.fold.view(request.projectDir), face };
  } finally {
    await hold.release();
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
    rateLimitGiveUpMs: config.team.rateLimitGiveUpMs,
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
    ...routingRecord(config, routing, request.costMode ?? config.team.costMode),
    ...(config.team.budget && { budget: budgetRecord(config.team.budget) }),
    ...(config.team.bestOf > 1 && { bestOf: config.team.bestOf }),
    ...(request.configFile !== undefined && { configFile: resolve(request.configFile) }),
  };
}

// Stage routing's part of run_started: the policy, and the cost mode with the model of each role.
function routingRecord(config: TeamConfig, routing: Routing, costMode: CostMode | undefined): Partial<EventOf<'run_started'>> {
  const policy = config.routing.enabled ? { routing: { reviewFiles: config.routing.reviewFiles, fixer: config.routing.fixer, known: routing.known, ...(config.routing.explore && { explore: true }), ...(config.routing.critic && { critic: true }), ...(config.routing.architect !== 'never' && { architect: config.routing.architect }), ...(config.routing.analyst === 'always' && { analyst: 'always' as const }) } } : {};
  if (costMode === undefined) return policy;
  return { ...policy, costMode, models: chooseModels(config, routing, costMode) };
}

// The budget as run_started records it, its keys in the schema's order.
function budgetRecord(budget: NonNullable<TeamConfig['team']['budget']>): Budget {
  return { ...(budget.usd !== undefined && { usd: budget.usd }), ...(budget.tokens !== undefined && { tokens: budget.tokens }), onExceed: budget.onExceed };
}
