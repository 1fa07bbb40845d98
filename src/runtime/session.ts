// One orchestrator's hold on one run: where things are, how events are written and handed to the machine.
import type { AnyActorRef } from 'xstate';
import type { TeamConfig } from '../../config/schema.js';
import { createProcessBackend } from '../../workers/process.js';
import { createTmuxBackend } from '../../workers/tmux/index.js';
import type { WorkerBackend, WorkerHandle } from '../../workers/types.js';
import type { Limits, NewEvent, TeamEvent } from '../checkpoint/events.js';
import { appendEvent, type RunPaths, type WriteOptions } from '../checkpoint/store.js';
import type { Logger } from '../logger.js';
import type { Progress } from './progress.js';
import { toMachineEvent } from './replay.js';

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
  /** Everything the log held when this orchestrator began. */
  events: TeamEvent[];
  sessionIds: { session: string; parent_session: string };
  /** The limits the run started with (run_started), not today's config. */
  limits: Limits;
}

export class RunSession {
  readonly runId: string;
  readonly paths: RunPaths;
  readonly projectDir: string;
  readonly config: TeamConfig;
  readonly configFile?: string;
  readonly log: Logger;
  readonly progress: Progress;
  readonly mode: 'headless' | 'tmux';
  readonly keepPanes: boolean;
  readonly workers: number;
  readonly write: WriteOptions;
  readonly sessionIds: { session: string; parent_session: string };
  readonly limits: Limits;
  /** Handles of started workers by `task#attempt`, from the log and from this session. */
  readonly handles = new Map<string, WorkerHandle>();
  /** The cancel in progress: how long workers get to stop. */
  cancel = { force: false };
  actor?: AnyActorRef;
  private processBackend?: WorkerBackend;
  private tmuxBackend?: WorkerBackend;

  constructor(options: SessionOptions) {
    this.runId = options.runId;
    this.paths = options.paths;
    this.projectDir = options.projectDir;
    this.config = options.config;
    this.configFile = options.configFile;
    this.log = options.log;
    this.progress = options.progress;
    this.mode = options.mode;
    this.keepPanes = options.keepPanes;
    this.workers = options.workers;
    this.write = { fsync: options.config.team.fsync };
    this.sessionIds = options.sessionIds;
    this.limits = options.limits;
    for (const event of options.events) {
      if (event.event === 'attempt_spawned') this.handles.set(`${event.task_id}#${event.attempt}`, event.handle as WorkerHandle);
    }
  }

  /** Set when an effect failed with our own bug; the drive loop stops the run (resumable). */
  fatal?: Error;
  private onFatal?: (error: Error) => void;
  private readonly finished = new Set<string>();

  // Appends an input event to the log, then hands it to the machine: the log is written first.
  commit(event: NewEvent): TeamEvent {
    if (event.event === 'task_finished') this.finished.add(`${event.task_id}#${event.attempt}`);
    const full = this.append(event);
    const machineEvent = toMachineEvent(full);
    if (machineEvent && this.actor) this.actor.send(machineEvent);
    return full;
  }

  // Appends a record or a fact the machine does not read.
  append(event: NewEvent): TeamEvent {
    const full = appendEvent(this.paths, this.runId, event, this.write) as TeamEvent;
    this.log.info({ event: full.event, ...detail(full) }, full.event);
    return full;
  }

  isFinished(taskId: string, attempt: number): boolean {
    return this.finished.has(`${taskId}#${attempt}`);
  }

  // An effect failed with our own bug: stop driving the run; the log stays resumable.
  fail(error: Error): void {
    this.fatal ??= error;
    this.onFatal?.(error);
  }

  whenFatal(listener: (error: Error) => void): void {
    this.onFatal = listener;
  }

  private readonly forceListeners = new Set<() => void>();
  private readonly inFlight = new Set<Promise<unknown>>();

  // A forced cancel: every stop in progress skips what is left of its grace period.
  forceStops(): void {
    this.cancel.force = true;
    for (const listener of this.forceListeners) listener();
  }

  onForce(listener: () => void): () => void {
    this.forceListeners.add(listener);
    return () => this.forceListeners.delete(listener);
  }

  // Tracks an effect so that the run does not end before it settles.
  track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  backend(kind: 'headless' | 'tmux'): WorkerBackend {
    // New panes of a resumed run join the run's recorded server, wherever this shell's TMUX_TMPDIR points.
    if (kind === 'tmux') return (this.tmuxBackend ??= createTmuxBackend(this.tmuxSocketDirs()[0] ? { socketDir: this.tmuxSocketDirs()[0] } : {}));
    return (this.processBackend ??= createProcessBackend());
  }

  // Every folder a tmux server of this run has its socket in (normally one).
  tmuxSocketDirs(): string[] {
    return [...new Set([...this.handles.values()].flatMap((h) => (h.backend === 'tmux' ? [h.socketDir] : [])))];
  }

  backendOf(handle: WorkerHandle): WorkerBackend {
    return this.backend(handle.backend === 'tmux' ? 'tmux' : 'headless');
  }
}

function detail(event: TeamEvent): Record<string, unknown> {
  const { event: _e, at: _a, run_id: _r, ...rest } = event as unknown as Record<string, unknown>;
  return rest;
}
