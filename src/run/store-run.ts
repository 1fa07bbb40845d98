// A run whose log is in PostgreSQL (team.store, --store): its writer holds the run's advisory lock,
// appends through PgEventGroup (each attempt's job in the transaction of its task_started), and
// its attempts run on `team worker` processes. The writer's own files (handoffs, log.jsonl) live in
// .team/store-runs/<run> of the folder it runs in; the log alone is enough to go on from any other.
import { mkdirSync } from 'node:fs';
import type { TeamConfig } from '../../config/schema.js';
import type { EventOf, IsolationRecord } from '../log/schema.js';
import { fetchIntoBranch, hasRemote, reachRemote } from '../git/remote.js';
import { probeRepo } from '../git/repo.js';
import { foldEvents, newFold, viewOf, type RunView } from '../log/fold.js';
import { LogWriteError, UsageError } from '../sys/errors.js';
import { makeRunLogger } from '../sys/logger.js';
import { PgEventGroup } from '../store/pg-event-group.js';
import { openQueue } from '../store/pg-queue.js';
import type { PgStore } from '../store/pg-store.js';
import { writerName } from '../store/pg-writer-lock.js';
import type { Progress } from './progress.js';
import { integrationBranch } from '../isolation/start.js';
import { pushIntegration } from '../isolation/remote.js';
import { closeRemote, type StoreLink } from '../remote/writer.js';
import { replayRun, type Replay } from './replay.js';
import { makeSession, type RunHold, type RunSession } from './session.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';

// Without team.remote, a run on the store has no branches: each worker works in its own folder.
const NO_REMOTE = { mode: 'none' as const, reason: 'attempts run on team workers, each in its own folder, and no team.remote carries the code between them' };

// With team.remote the code goes through git: `team/<run>` from this clone's HEAD, task branches
// made, worked on and pushed by the workers in their own clones, merged here and pushed back.
export async function chooseStoreIsolation(projectDir: string, remote: string | undefined, runId: string): Promise<IsolationRecord> {
  if (remote === undefined) return NO_REMOTE;
  const repo = await probeRepo(projectDir);
  if (repo.kind === 'none') throw new UsageError(`team.remote: "${remote}" needs a git repository with a commit, and ${repo.reason}`);
  if (!(await hasRemote(projectDir, remote))) throw new UsageError(`team.remote: this repository has no remote "${remote}" (\`git remote -v\` lists its remotes)`);
  const reached = await reachRemote(projectDir, remote);
  if (!reached.ok) throw new UsageError(`team.remote: the remote "${remote}" cannot be reached (${reached.stderr || `git exited ${reached.code}`}); nothing was started`);
  return { mode: 'worktree', reason: `team.remote: the branches go through ${remote}`, base: repo.head, userBranch: repo.branch, prefix: repo.prefix, remote, branch: integrationBranch(runId) };
}

export interface StoreTakeover {
  session: RunSession;
  replay: Replay;
  view: RunView;
  release: () => Promise<void>;
}

// Takes the run's writer lock and rebuilds its state from the store's log (on any machine).
export async function takeOverStore(store: PgStore, runId: string, project: { dir: string; config: TeamConfig; configFile?: string }, progress: Progress): Promise<StoreTakeover> {
  const hold = await holdStoreRun(store, runId);
  try {
    const read = await store.read(runId);
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
    const session = hold.session({
      runId,
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
    });
    return { session, replay, view, release: hold.release };
  } catch (error) {
    await hold.release();
    throw error;
  }
}

// Says which isolation runs; through a remote, makes `team/<run>` and pushes it for the workers.
export async function openStoreIsolation(session: RunSession): Promise<void> {
  const iso = session.isolation;
  if (iso.remote === undefined) {
    session.progress.emit({ type: 'isolation', mode: 'none', reason: NO_REMOTE.reason }, `isolation: none — ${NO_REMOTE.reason}`);
    return;
  }
  await iso.serial(() => iso.ensureIntegration(session));
  const refused = await pushIntegration(session);
  if (refused) throw new UsageError(`team.remote: ${refused}`);
  session.progress.emit({ type: 'isolation', mode: 'worktree', branch: iso.branch, remote: iso.remote }, `isolation: through ${iso.remote} — each worker on its task's branch in its own clone; merged work on ${iso.branch}, pushed to ${iso.remote}`);
}

// The writer's hold on a run of the store: the run's writer lock, pg-boss, and its own files (made
// with the session); a writer lock lost (its connection gone) stops the run. The release ends them
// and closes the store.
export async function holdStoreRun(store: PgStore, runId: string): Promise<RunHold> {
  const link = await openLink(store, runId);
  const paths = store.paths(runId);
  let session: RunSession | undefined;
  return {
    paths,
    session: (options) => {
      keepTeamOutOfGit(paths.projectDir);
      mkdirSync(paths.handoffsDir, { recursive: true });
      const made = makeSession({ ...options, paths, log: makeRunLogger(paths.logFile), store: link });
      void link.lock.lost.then((error) => made.cancel.fail(new LogWriteError(runId, error)));
      return (session = made);
    },
    release: () => closeRemote(session?.remote ?? link),
  };
}

// pg-boss and the run's writer lock, on the store; the store is closed when they cannot be had.
async function openLink(store: PgStore, runId: string): Promise<StoreLink> {
  const name = writerName(runId);
  try {
    const lock = await store.lockWriter(runId, name);
    const boss = await openQueue(store.url, name).catch(async (error: unknown) => {
      await lock.release();
      throw error;
    });
    return { url: store.url, store, boss, lock, sink: new PgEventGroup(store, boss, runId) };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}
