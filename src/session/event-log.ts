// The run's event log as one orchestrator writes it: every input is appended before the machine sees
// it, and every event is durable before the effects of the step that follows it start: each effect
// awaits flush() first (group commit, off the event loop: see EventGroup).
import { rmSync } from 'node:fs';
import type { AnyActorRef } from 'xstate';
import { TEMP_PREFIX, writeFileAtomic } from '../sys/atomic.js';
import type { NewEvent, TeamEvent } from '../log/schema.js';
import { LogDigest, type LogPosition } from '../log/digest.js';
import type { EventSink } from '../log/event-group.js';
import type { RunPaths, WriteOptions } from '../log/write.js';
import { LogWriteError } from '../sys/errors.js';
import type { Logger } from '../sys/logger.js';
import type { LogFold } from './log-fold.js';
import { toMachineEvent } from '../../machines/inputs.js';

export class EventLog {
  readonly write: WriteOptions;
  private actor?: AnyActorRef;
  /** Set by the first write that failed: nothing more is written, so the log never has a hole. */
  private broken?: LogWriteError;
  /** Attempts whose task_finished this orchestrator wrote, by `task#attempt`. */
  private readonly finished = new Set<string>();

  /** Events appended, and how many of them a flush has made durable. */
  private appendedCount = 0;
  private durableCount = 0;

  constructor(
    private readonly runId: string,
    private readonly log: Logger,
    write: WriteOptions,
    private readonly onBroken: (error: LogWriteError) => void,
    /** The fold of the log: what it held when this orchestrator began; each durable append joins it. */
    readonly fold: LogFold,
    /** Where the events go: the run's files (EventGroup, which adds each file to `digest`), or PostgreSQL. */
    private readonly group: EventSink,
    /** The digest of every event file in the log so far. */
    private readonly digest: LogDigest = new LogDigest(),
  ) {
    this.write = write;
  }

  // The live machine that committed input events are handed to.
  attach(actor: AnyActorRef): void {
    this.actor = actor;
  }

  // Appends an input event to the log, then hands it to the machine: the log is written first. The
  // input and the records of the step it causes are made durable together once the step is over
  // (the effects the step starts await that).
  commit(event: NewEvent): TeamEvent {
    if (event.event === 'task_finished') this.finished.add(`${event.task_id}#${event.attempt}`);
    const full = this.append(event);
    const machineEvent = toMachineEvent(full);
    if (machineEvent && this.actor) this.actor.send(machineEvent);
    void this.settled();
    return full;
  }

  /** Whether every write so far succeeded: only then does the log hold every record the machine made. */
  get intact(): boolean {
    return this.broken === undefined;
  }

  /** Event files in the log: those it held when this orchestrator began, and those it appended since. */
  get count(): number {
    return this.digest.size;
  }

  // Where the log stands now: its last event file, their count and digest (for a machine snapshot).
  position(): LogPosition | undefined {
    return this.digest.position();
  }

  // Appends a record or a fact the machine does not read; in the log at the next flush().
  append(event: NewEvent): TeamEvent {
    const { full, name } = this.guard(() => this.group.add(event));
    this.fold.appended({ ...(full as TeamEvent), file: name });
    this.appendedCount += 1;
    return full as TeamEvent;
  }

  // Resolves once every event appended so far is in the log and durable: every effect awaits it
  // before it starts. Rejects with the LogWriteError when the log broke.
  flush(): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    const upTo = this.appendedCount;
    return this.group.flush().then(
      () => {
        if (upTo <= this.durableCount) return;
        this.fold.durable(upTo - this.durableCount);
        this.durableCount = upTo;
      },
      (error: unknown) => {
        throw this.breakWith(error as Error);
      },
    );
  }

  // flush() where nothing can be done about a log that broke (it has stopped the run already).
  settled(): Promise<void> {
    return this.flush().catch((error: unknown) => {
      if (!(error instanceof LogWriteError)) throw error;
    });
  }

  // Runs `then` once what was appended so far is durable (never when the log broke); its own
  // failure is logged, never left to end the process as an unhandled rejection.
  afterFlush(then: () => void): void {
    this.flush()
      .then(then, () => undefined)
      .catch((error: unknown) => this.log.error({ err: error }, 'an action after a log commit failed'));
  }

  // A write that fails breaks the log for good: the run must stop, and it says why.
  private guard<T>(write: () => T): T {
    if (this.broken) throw this.broken;
    try {
      return write();
    } catch (error) {
      throw this.breakWith(error as Error);
    }
  }

  private breakWith(error: Error): LogWriteError {
    if (this.broken) return this.broken;
    this.broken = new LogWriteError(this.runId, error);
    this.log.error({ err: error }, 'the event log cannot be written');
    this.onBroken(this.broken);
    return this.broken;
  }

  // Whether this orchestrator already wrote the attempt's task_finished.
  isFinished(taskId: string, attempt: number): boolean {
    return this.finished.has(`${taskId}#${attempt}`);
  }
}

// Before a takeover drives a run: a log that cannot take one more file is said so, changing nothing.
export function probeEventLog(paths: RunPaths, runId: string): void {
  try {
    const probe = writeFileAtomic(paths.eventsDir, `${TEMP_PREFIX}probe-${process.pid}`, `${process.pid}\n`, { fsync: false });
    rmSync(probe, { force: true });
  } catch (error) {
    throw new LogWriteError(runId, error as Error, 'nothing was changed');
  }
}
