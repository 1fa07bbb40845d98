// One orchestrator's hold on one run: where things are, what it was started with, and its three
// parts — the event log, the worker registry and the cancel scope.
import type { TeamConfig } from '../../config/schema.js';
import type { AttemptInput } from '../../machines/types.js';
import type { WorkerHandle } from '../../workers/types.js';
import type { RunStore } from '../store/types.js';
import type { Limits, TeamEvent } from '../log/schema.js';
import { EventGroup } from '../log/event-group.js';
import { LogDigest } from '../log/digest.js';
import type { RunPaths, RunRecord } from '../log/write.js';
import type { Logger } from '../sys/logger.js';
import { CancelScope } from './effects.js';
import { EventLog } from './event-log.js';
import { LogFold, type FoldedLog } from './log-fold.js';
import type { StoreLink } from '../store/queue.js';
import { Isolation } from './isolation.js';
import type { Progress } from './progress.js';
import { WorkerRegistry } from './registry.js';
import type { HeldSignals } from './held-signals.js';

// Where the session's attempts run: this machine's own processes, or team workers that take them from
// the PostgreSQL store's queue. Chosen once, when the session is made (src/run/place.ts); the runtime
// asks it, never the store.
export interface AttemptPlace {
  /** Told as the machine starts a new attempt, before its task_started is recorded (a queued job commits with it). */
  offer(input: AttemptInput): void;
  /** Runs the attempt to its recorded end. */
  run(input: AttemptInput, signal: AbortSignal): Promise<void>;
  /** The worker this machine runs for an attempt, to stop it; none when a team worker runs it. */
  ownWorker(taskId: string, attempt: number): WorkerHandle | undefined;
  /** Passes a cancel this orchestrator recorded on to the machines that run the attempts. */
  passCancelOn(by: string, force: boolean): Promise<void>;
  /** Listens for cancel requests written on other machines; resolves with how to stop listening. */
  listenCancel(onCancel: (by: string, force: boolean) => void): Promise<() => Promise<void>>;
  /** The store the run's inbox (team tool calls of other processes) is in. */
  readonly inbox: RunStore;
  /** Whether the agents work on this machine (in its worktrees, inside its fence); a team worker's work on its own. */
  readonly runsHere: boolean;
  /** Whether the run's fold and machine snapshots are saved beside its files here. */
  readonly snapshots: boolean;
  /** Ends what the place keeps open while the run goes (a second close does nothing). */
  close(): void;
}

export interface SessionOptions {
  runId: string;
  paths: RunPaths;
  projectDir: string;
  config: TeamConfig;
  configFile?: string;
  log: Logger;
  progress: Progress;
  /** Default worker backend for agents that do not choose. */
  mode: 'headless' | 'tmux';
  keepPanes: boolean;
  workers: number;
  /** run.json. */
  run: RunRecord;
  /** The fold of the log and its file names when this orchestrator began (a takeover's read); a new run starts empty. */
  folded?: FoldedLog;
  /** The PostgreSQL store the run's log is in, when it is not in the run's files. */
  store?: StoreLink;
  /** Where the session's attempts run, made once the session is. */
  place: (session: RunSession) => AttemptPlace;
  /** The digest of every event file the log held then (a takeover's read); a new run starts empty. */
  digest?: LogDigest;
  sessionIds: { session: string; parent_session: string };
  /** The limits the run started with (run_started), not today's config. */
  limits: Limits;
  /** Cancel signals held since a takeover took the lock, heard once the run listens. */
  heldSignals?: HeldSignals;
  /** Told each batch of the log's events as it becomes durable (the run's live trace, src/views/trace/live.ts). */
  observe?: (batch: readonly TeamEvent[]) => void;
}

export interface RunSession extends Readonly<Omit<SessionOptions, 'digest' | 'folded' | 'store' | 'place' | 'observe'>> {
  /** Appends events and hands inputs to the live machine. */
  readonly events: EventLog;
  /** The run's workers and the backends that reach them. */
  readonly registry: WorkerRegistry;
  /** Force, effects in flight, and the fatal error that stops the run. */
  readonly cancel: CancelScope;
  /** Worktree isolation: the run's branches, worktrees and merges. */
  readonly isolation: Isolation;
  /** Where its attempts run: this machine, or team workers. */
  readonly place: AttemptPlace;
}

// A session over a run whose log was folded into `options.folded` when this orchestrator began.
export function makeSession(options: SessionOptions): RunSession {
  const { digest: _digest, folded, store, place, observe, ...rest } = options;
  const cancel = new CancelScope();
  const write = { fsync: options.config.team.fsync };
  const digest = options.digest ?? new LogDigest();
  const fold = new LogFold(options.run, folded, observe);
  const sink = store?.sink ?? new EventGroup(options.paths, options.runId, { ...write, digest });
  const parts: Omit<RunSession, 'place'> = {
    ...rest,
    // A log that cannot be written stops the run: nothing that happens next could be recorded.
    events: new EventLog(options.runId, options.log, write, (error) => cancel.fail(error), fold, sink, digest),
    registry: new WorkerRegistry(fold.state),
    cancel,
    isolation: new Isolation(options.projectDir, options.runId, fold.state.git),
  };
  const session = parts as { -readonly [K in keyof RunSession]: RunSession[K] };
  session.place = place(session);
  return session;
}
