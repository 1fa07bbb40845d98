// A run whose log is in PostgreSQL (team.store, --store): its writer holds the run's advisory lock,
// appends through PgEventGroup (each attempt's job in the transaction of its task_started), and
// its attempts run on `team worker` processes. The writer's own files (handoffs, log.jsonl) live in
// .team/store-runs/<run> of the folder it runs in; the log alone is enough to go on from any other.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../config/schema.js';
import type { EventOf, IsolationRecord } from '../log/schema.js';
import { fetchIntoBranch, hasRemote, reachRemote } from '../git/remote.js';
import { probeRepo } from '../git/repo.js';
import { runPathsIn, type RunPaths } from '../log/write.js';
import { makeRunId } from '../log/time.js';
import { foldEvents, newFold, viewOf, type RunView } from '../log/fold.js';
import { LogWriteError, UsageError } from '../sys/errors.js';
import { makeRunLogger } from '../sys/logger.js';
import { PgEventGroup } from '../store/pg-event-group.js';
import { openQueue } from '../store/pg-queue.js';
import { PgStore } from '../store/pg-store.js';
import { takeWriterLock, writerName } from '../store/pg-writer-lock.js';
import { driveRun, type DriveOutcome } from './drive.js';
import type { Progress } from './progress.js';
import { integrationBranch } from '../isolation/start.js';
import { pushIntegration } from '../isolation/remote.js';
import { ensureIntegration } from '../isolation/integration.js';
import { closeRemote, type StoreLink } from '../remote/writer.js';
import { inputOf, replayRun, type Replay } from './replay.js';
import { makeSession, type RunSession, type SessionOptions } from './session.js';
import { limitsOf, runStartedRecord, type StartRequest } from './start.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';

// Without team.remote, a run on the store has no branches: each worker works in its own folder.
const NO_REMOTE = { mode: 'none' as const, reason: 'attempts run on team workers, each in its own folder, and no team.remote carries the code between them' };

// With team.remote the code goes through git: `team/<run>` from this clone's HEAD, task branches
// made, worked on and pushed by the workers in their own clones, merged here and pushed back.
async function chooseStoreIsolation(projectDir: string, remote: string | undefined, runId: string): Promise<IsolationRecord> {
  if (remote === undefined) return NO_REMOTE;
  const repo = await probeRepo(projectDir);
  if (repo.kind === 'none') throw new UsageError(`team.remote: "${remote}" needs a git repository with a commit, and ${repo.reason}`);
  if (!(await hasRemote(projectDir, remote))) throw new UsageError(`team.remote: this repository has no remote "${remote}" (\`git remote -v\` lists its remotes)`);
  const reached = await reachRemote(projectDir, remote);
  if (!reached.ok) throw new UsageError(`team.remote: the remote "${remote}" cannot be reached (${reached.stderr || `git exited ${reached.code}`}); nothing was started`);
  return { mode: 'worktree', reason: `team.remote: the branches go through ${remote}`, base: repo.head, userBranch: repo.branch, prefix: repo.prefix, remote, branch: integrationBranch(runId) };
}

// The writer's own files of a run on the store: laid out as a run folder's, under .team/store-runs.
export function storeRunPaths(projectDir: string, runId: string): RunPaths {
  return runPathsIn(join(projectDir, '.team', 'store-runs', runId), projectDir);
}

// Creates the run in the store and drives it to its end (or a stop for a decision).
export async function startStoreRun(request: StartRequest & { storeUrl: string }): Promise<{ outcome: DriveOutcome; view: RunView; runId: string; paths: RunPaths }> {
  const { config, routing } = request;
  const runId = request.runId ?? makeRunId();
  // Decided before anything is written: a remote that cannot be used is refused with nothing made.
  const isolation = await chooseStoreIsolation(request.projectDir, config.team.remote, runId);
  const link = await openLink(request.storeUrl, runId, async (store) => {
    await store.createRun({ profile: 'default', stage: 'team-plan', status: 'running', ...request.session, task: request.task, workers: request.workers, agentType: routing.agentType, mode: request.mode }, runId);
  });
  try {
    const paths = openPaths(request.projectDir, runId);
    const record = (await link.store.read(runId)).run;
    const limits = limitsOf(config);
    request.progress.emit({ type: 'run.started', run: runId, runDir: paths.runDir }, `teamline run ${runId} (${request.mode}, ${request.workers} workers) in the store; its attempts go to team workers`);
    const session = makeStoreSession({ runId, paths, projectDir: request.projectDir, config, configFile: request.configFile, progress: request.progress, mode: 'headless', keepPanes: false, workers: request.workers, run: record, events: [], sessionIds: request.session, limits }, link);
    const started = session.events.append(runStartedRecord(request, limits, { workerMode: 'headless', keepPanes: false, isolation })) as EventOf<'run_started'>;
    session.isolation.note(started);
    await openStoreIsolation(session);
    const outcome = await driveRun(session, { input: inputOf(started) });
    return { outcome, view: session.events.fold.view(request.projectDir), runId, paths };
  } finally {
    await closeRemote(link);
  }
}

export interface StoreTakeover {
  session: RunSession;
  replay: Replay;
  view: RunView;
  close: () => Promise<void>;
}

// Takes the run's writer lock and rebuilds its state from the store's log (on any machine).
export async function takeOverStore(storeUrl: string, runId: string, project: { dir: string; config: TeamConfig; configFile?: string }, progress: Progress): Promise<StoreTakeover> {
  const link = await openLink(storeUrl, runId);
  try {
    const read = await link.store.read(runId);
    const st = newFold(read.run);
    foldEvents(st, read.events);
    const files = { run: read.run, events: read.events, approvals: read.approvals, problems: read.malformed };
    const view = viewOf(st, files, project.dir);
    const started = read.events.find((e): e is EventOf<'run_started'> & { file: string } => e.event === 'run_started');
    if (!started) throw new UsageError(`run ${runId} in the store was not started by the pipeline (no run_started event)`);
    const replay = replayRun(read.events);
    // Another clone: the integration branch is the remote's, with every merge made so far.
    const remote = started.isolation?.mode === 'worktree' ? started.isolation.remote : undefined;
    if (remote !== undefined && started.isolation?.branch) await fetchIntoBranch(project.dir, remote, started.isolation.branch);
    const session = makeStoreSession(
      {
        runId,
        paths: openPaths(project.dir, runId),
        projectDir: project.dir,
        config: project.config,
        configFile: project.configFile,
        progress,
        mode: 'headless',
        keepPanes: false,
        workers: started.workers,
        run: read.run,
        events: read.events,
        folded: { st, events: read.events, names: read.events.map((e) => e.file) },
        sessionIds: { session: started.session, parent_session: started.parent_session },
        limits: started.limits,
      },
      link,
    );
    return { session, replay, view, close: () => closeRemote(session.remote ?? link) };
  } catch (error) {
    await closeRemote(link);
    throw error;
  }
}

// Says which isolation runs; through a remote, makes `team/<run>` and pushes it for the workers.
async function openStoreIsolation(session: RunSession): Promise<void> {
  const iso = session.isolation;
  if (iso.remote === undefined) {
    session.progress.emit({ type: 'isolation', mode: 'none', reason: NO_REMOTE.reason }, `isolation: none — ${NO_REMOTE.reason}`);
    return;
  }
  await iso.serial(() => ensureIntegration(session));
  const refused = await pushIntegration(session);
  if (refused) throw new UsageError(`team.remote: ${refused}`);
  session.progress.emit({ type: 'isolation', mode: 'worktree', branch: iso.branch, remote: iso.remote }, `isolation: through ${iso.remote} — each worker on its task's branch in its own clone; merged work on ${iso.branch}, pushed to ${iso.remote}`);
}

// The store, pg-boss and the run's writer lock; `before` runs once the store is open (it makes the run).
async function openLink(url: string, runId: string, before?: (store: PgStore) => Promise<void>): Promise<StoreLink> {
  const name = writerName(runId);
  const store = await PgStore.open(url, name);
  try {
    await before?.(store);
    const lock = await takeWriterLock(url, runId, name);
    const boss = await openQueue(url, name).catch(async (error: unknown) => {
      await lock.release();
      throw error;
    });
    return { url, store, boss, lock, sink: new PgEventGroup(store, boss, runId) };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

function openPaths(projectDir: string, runId: string): RunPaths {
  const paths = storeRunPaths(projectDir, runId);
  keepTeamOutOfGit(projectDir);
  mkdirSync(paths.handoffsDir, { recursive: true });
  return paths;
}

// A session whose log is the store's; a writer lock lost (its connection gone) stops the run.
function makeStoreSession(options: Omit<SessionOptions, 'log' | 'store'>, link: StoreLink): RunSession {
  const session = makeSession({ ...options, log: makeRunLogger(options.paths.logFile), store: link });
  void link.lock.lost.then((error) => session.cancel.fail(new LogWriteError(options.runId, error)));
  return session;
}
