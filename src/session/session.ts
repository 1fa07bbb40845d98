// One orchestrator's hold on one run: where things are, what it was started with, and its three
// parts — the event log, the worker registry and the cancel scope.
import type { TeamConfig } from '../../config/schema.js';
import type { Limits } from '../log/schema.js';
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
  /** The digest of every event file the log held then (a takeover's read); a new run starts empty. */
  digest?: LogDigest;
  sessionIds: { session: string; parent_session: string };
  /** The limits the run started with (run_started), not today's config. */
  limits: Limits;
  /** Cancel signals held since a takeover took the lock, heard once the run listens. */
  heldSignals?: HeldSignals;
}

export interface RunSession extends Readonly<Omit<SessionOptions, 'digest' | 'folded' | 'store'>> {
  /** Appends events and hands inputs to the live machine. */
  readonly events: EventLog;
  /** The run's workers and the backends that reach them. */
  readonly registry: WorkerRegistry;
  /** Force, effects in flight, and the fatal error that stops the run. */
  readonly cancel: CancelScope;
  /** Worktree isolation: the run's branches, worktrees and merges. */
  readonly isolation: Isolation;
  /** The writer's hold on the PostgreSQL store: attempts run on team workers. */
  readonly remote?: StoreLink;
}

// A session over a run whose log was folded into `options.folded` when this orchestrator began.
export function makeSession(options: SessionOptions): RunSession {
  const { digest: _digest, folded, store, ...rest } = options;
  const cancel = new CancelScope();
  const write = { fsync: options.config.team.fsync };
  const digest = options.digest ?? new LogDigest();
  const fold = new LogFold(options.run, folded);
  const sink = store?.sink ?? new EventGroup(options.paths, options.runId, { ...write, digest });
  const session: { -readonly [K in keyof RunSession]: RunSession[K] } = {
    ...rest,
    // A log that cannot be written stops the run: nothing that happens next could be recorded.
    events: new EventLog(options.runId, options.log, write, (error) => cancel.fail(error), fold, sink, digest),
    registry: new WorkerRegistry(fold.state),
    cancel,
    isolation: new Isolation(options.projectDir, options.runId, fold.state.git),
  };
  if (store) session.remote = store;
  return session;
}
