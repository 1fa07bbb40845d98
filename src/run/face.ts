// Where a run's attempts run, chosen once from the store it is in: on this machine, in processes
// and worktrees of its own (the files under .team/runs), or on team workers that take them from the
// PostgreSQL store's queue. What differs between the two lives here, behind one interface; start,
// takeover, resume and cancel ask the face, never the store's kind.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../config/schema.js';
import type { IsolationRecord } from '../log/schema.js';
import type { LogDigest } from '../log/digest.js';
import type { RunFiles } from '../log/read.js';
import { keepStampsAfter } from '../log/time.js';
import type { RunPaths } from '../log/write.js';
import { viewOf, type RunView } from '../log/fold/fold.js';
import type { FoldState } from '../log/fold/types.js';
import { saveFold } from '../log/read-view.js';
import { TEMP_PREFIX } from '../sys/atomic.js';
import { LogWriteError, UsageError } from '../sys/errors.js';
import { makeRunLogger } from '../sys/logger.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';
import { foldInput, type RunStore } from '../store/types.js';
import { queueOf, type QueueStore } from '../store/queue.js';
import { probeEventLog } from '../session/event-log.js';
import { readForReplay } from '../session/machine-snapshot.js';
import type { Progress } from '../session/progress.js';
import { makeSession, type RunSession, type SessionOptions } from '../session/session.js';
import { chooseIsolation, forRun, openIsolation } from '../isolation/start.js';
import { fenceAtStart } from '../isolation/fence.js';
import { closeRemote } from '../remote/writer.js';
import { herePlace, queuedPlace } from './place.js';
import { chooseStoreIsolation, openStoreIsolation } from './store-isolation.js';
import { assertGitWritable, assertRunsWritable } from './writable.js';

// This machine's folder of the run, the session that drives it, and the release of the run's lock
// (and of what else the writer holds).
export interface RunHold {
  paths: RunPaths;
  session(options: Omit<SessionOptions, 'paths' | 'log' | 'store' | 'place'>): RunSession;
  release(): Promise<void>;
}

// What a new run asks of its face before anything is written.
export interface StartAsk {
  projectDir: string;
  config: TeamConfig;
  workers: number;
  land: boolean;
  workerMode: 'headless' | 'tmux';
  keepPanes: boolean;
  progress: Progress;
}

// A takeover's read of the log: with the files, their digest and the machine's snapshot.
export interface LogRead {
  read: RunFiles;
  digest?: LogDigest;
  snapshot?: ReturnType<typeof readForReplay>['snapshot'];
}

export interface RunFace {
  /** The store the run's log is in. */
  readonly store: RunStore;
  /** How the start line names where the run is. */
  where(paths: RunPaths): string;
  /** Refuses, with nothing made, a run this machine cannot record. */
  assertWritable(projectDir: string, runDir?: string): void;
  /** The run's isolation, decided before anything is written: one that cannot be had is refused. */
  isolation(ask: StartAsk, runId: string): Promise<IsolationRecord>;
  /** The fence this machine builds around its attempts (none here when team workers run them). */
  fence(ask: StartAsk): { on: boolean; why?: string } | undefined;
  /** How the attempts run: as asked on this machine; headless on team workers. */
  workers(asked: { workerMode: 'headless' | 'tmux'; keepPanes: boolean }): { mode: 'headless' | 'tmux'; keepPanes: boolean };
  /** Says which isolation runs, and makes what it needs (the integration branch). */
  openIsolation(session: RunSession): Promise<void>;
  /** Takes the run's writer lock (`command`: the holder it names), or refuses naming the holder (LockedError). */
  hold(runId: string, command: string, config: TeamConfig): Promise<RunHold>;
  /** Refuses a run whose log cannot be written, before it is taken over. */
  probe(paths: RunPaths, runId: string): void;
  /** The whole log, for a takeover that holds the lock. */
  readLog(paths: RunPaths, runId: string): Promise<LogRead>;
  /** The run's view after the replay (the files save it as the run's snapshots). */
  viewAfterReplay(paths: RunPaths, st: FoldState, read: RunFiles, projectDir: string): RunView;
  /** Why a run with no run_started is not taken over. */
  notStarted(runId: string): string;
  /** Refuses a run that ended (and, of the files, one cancelled or being cancelled, saying how it stands). */
  refuseEnded(status: string, runId: string): void;
  /** Whether what a crash left running of an ended run is this machine's to end. */
  readonly endsLeftovers: boolean;
  /** Refuses a resume whose worktrees' git cannot be written. */
  assertGitWritable(projectDir: string, runId: string, isolated: boolean): void;
  /** How the resume line says where uncertain attempts are, and where it resumes from. */
  readonly uncertain: string;
  readonly resumesFrom: string;
  /** What a stop for a decision adds: where the attempts are listed. */
  stoppedHint(runId: string): string;
  /** Whether a takeover of a log that cannot be replayed may still stop its recorded workers (they are this machine's). */
  readonly stopsUnreplayable: boolean;
  /** What a cancel with no writer left says, and the cancel's `by`. */
  sweepLine(runId: string): string;
  readonly sweepBy: string;
  /** Whether the end summary names this machine's work places (the branches here, the checkpoint file). */
  readonly placesHere: boolean;
}

// The face of the store the run is in: the one place its kind is asked.
export function faceOf(store: RunStore): RunFace {
  const queue = queueOf(store);
  return queue === undefined ? new HereFace(store) : new QueuedFace(store, queue);
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

// A temporary file this old in events/ or handoffs/ is a write its dead orchestrator never finished.
const TORN_AGE_MS = 5_000;

// The attempts run on this machine; the run's log is its folder's files.
class HereFace implements RunFace {
  readonly endsLeftovers = true;
  readonly uncertain = 'left running to reconcile';
  readonly resumesFrom = '';
  readonly stopsUnreplayable = true;
  readonly sweepBy = 'team cancel (orchestrator gone)';
  readonly placesHere = true;

  constructor(readonly store: RunStore) {}

  where(paths: RunPaths): string {
    return paths.runDir;
  }

  assertWritable(projectDir: string, runDir?: string): void {
    assertRunsWritable(projectDir, ...(runDir === undefined ? [] : [runDir]));
  }

  async isolation(ask: StartAsk, runId: string): Promise<IsolationRecord> {
    return forRun(await chooseIsolation(ask.projectDir, ask.config, ask.workers, ask.land), runId, ask.projectDir);
  }

  fence(ask: StartAsk): { on: boolean; why?: string } {
    return fenceAtStart(ask.config.team.fence, (line) => ask.progress.emit({ type: 'run.unfenced' }, line));
  }

  workers(asked: { workerMode: 'headless' | 'tmux'; keepPanes: boolean }): { mode: 'headless' | 'tmux'; keepPanes: boolean } {
    return { mode: asked.workerMode, keepPanes: asked.keepPanes };
  }

  openIsolation(session: RunSession): Promise<void> {
    return openIsolation(session);
  }

  async hold(runId: string, command: string): Promise<RunHold> {
    const paths = this.store.paths(runId);
    const lock = await this.store.lockWriter(runId, command);
    return { paths, session: (options) => makeSession({ ...options, paths, log: makeRunLogger(paths.logFile), place: herePlace }), release: () => lock.release() };
  }

  probe(paths: RunPaths, runId: string): void {
    probeEventLog(paths, runId);
  }

  // With the lock held, the run's files as the replay reads them: torn writes of the orchestrator that
  // died removed, through the machine's snapshot where it holds, new stamps after the newest name.
  async readLog(paths: RunPaths): Promise<LogRead> {
    removeTornWrites(paths);
    const { files, digest, snapshot } = readForReplay(paths);
    keepStampsAfter(newestEventName(paths));
    return { read: files, digest, snapshot };
  }

  // The whole log of the files was read for the replay anyway: its folds are saved as the run's snapshots.
  viewAfterReplay(paths: RunPaths, st: FoldState, read: RunFiles, projectDir: string): RunView {
    return saveFold(paths, st, read, projectDir);
  }

  notStarted(runId: string): string {
    return `run ${runId} was not started by the pipeline (no run_started event): it is driven with \`team state\` commands`;
  }

  refuseEnded(status: string, runId: string): void {
    if (status === 'cancelled') throw new UsageError(`run ${runId} was cancelled, and a cancelled run stays cancelled; start a new run instead`);
    if (status === 'cancelling') throw new UsageError(`run ${runId} is being cancelled; \`team cancel --run ${runId}\` finishes the cancel`);
    refuseEnded(status, runId);
  }

  assertGitWritable(projectDir: string, runId: string, isolated: boolean): void {
    if (isolated) assertGitWritable(projectDir, runId);
  }

  stoppedHint(runId: string): string {
    return `\n  \`team status --run ${runId}\` lists the attempts.`;
  }

  sweepLine(runId: string): string {
    return `no live orchestrator for run ${runId}: shutting its workers down from the log`;
  }
}

// The attempts run on team workers that take them from the PostgreSQL store's queue; this process
// writes the log there and keeps its own files in .team/store-runs/<run>.
class QueuedFace implements RunFace {
  readonly endsLeftovers = false;
  readonly uncertain = 'on workers to hear from';
  readonly resumesFrom = 'from the store ';
  readonly stopsUnreplayable = false;
  readonly sweepBy = 'team cancel (no writer)';
  readonly placesHere = false;

  constructor(
    readonly store: RunStore,
    private readonly queue: QueueStore,
  ) {}

  where(): string {
    return 'the store; its attempts go to team workers';
  }

  assertWritable(): void {}

  isolation(ask: StartAsk, runId: string): Promise<IsolationRecord> {
    return chooseStoreIsolation(ask.projectDir, ask.config.team.remote, runId);
  }

  fence(): undefined {
    return undefined;
  }

  workers(): { mode: 'headless'; keepPanes: false } {
    return { mode: 'headless', keepPanes: false };
  }

  openIsolation(session: RunSession): Promise<void> {
    return openStoreIsolation(session);
  }

  // The writer's hold on a run of the store: the run's writer lock, pg-boss, and its own files (made
  // with the session); a writer lock that cannot be had back (the store away past its bound, or another
  // writer) stops the run. The release ends them and closes the store.
  async hold(runId: string, _command: string, config: TeamConfig): Promise<RunHold> {
    const link = await this.queue.openLink(runId, config.team.storeOutageMs);
    const paths = this.store.paths(runId);
    return {
      paths,
      session: (options) => {
        keepTeamOutOfGit(paths.projectDir);
        mkdirSync(paths.handoffsDir, { recursive: true });
        const made = makeSession({ ...options, paths, log: makeRunLogger(paths.logFile), store: link, place: queuedPlace(link) });
        void link.lock.gone.then((error) => made.cancel.fail(new LogWriteError(runId, error)));
        return made;
      },
      release: () => closeRemote(link),
    };
  }

  probe(): void {}

  async readLog(_paths: RunPaths, runId: string): Promise<LogRead> {
    return { read: foldInput(await this.store.read(runId)) };
  }

  viewAfterReplay(_paths: RunPaths, st: FoldState, read: RunFiles, projectDir: string): RunView {
    return viewOf(st, read, projectDir);
  }

  notStarted(runId: string): string {
    return `run ${runId} in the store was not started by the pipeline (no run_started event)`;
  }

  refuseEnded(status: string, runId: string): void {
    refuseEnded(status, runId);
  }

  assertGitWritable(): void {}

  stoppedHint(): string {
    return '';
  }

  sweepLine(runId: string): string {
    return `no writer holds run ${runId}: cancelling it from the store's log`;
  }
}

function refuseEnded(status: string, runId: string): void {
  if (ENDED.has(status)) throw new UsageError(`run ${runId} already ended ${status}; there is nothing to resume`);
}

// With the lock held, the previous orchestrator is gone: its half-written files are removed, never read.
function removeTornWrites(paths: RunPaths): void {
  for (const dir of [paths.eventsDir, paths.handoffsDir]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const file = join(dir, name);
      try {
        if (Date.now() - statSync(file).mtimeMs > TORN_AGE_MS) rmSync(file, { force: true });
      } catch {
        // Gone already.
      }
    }
  }
}

// The name that sorts last in events/ (valid or not): new events must sort after it.
function newestEventName(paths: RunPaths): string {
  try {
    return readdirSync(paths.eventsDir).filter((name) => !name.startsWith('.')).sort().at(-1) ?? '';
  } catch {
    return '';
  }
}
