// The run's event log as one orchestrator writes it: every input is appended before the machine sees it.
import type { AnyActorRef } from 'xstate';
import type { NewEvent, TeamEvent } from '../../machines/events.js';
import { appendEvent, type RunPaths, type WriteOptions } from '../checkpoint/store.js';
import type { Logger } from '../logger.js';
import { toMachineEvent } from './replay.js';

export class EventLog {
  readonly write: WriteOptions;
  private actor?: AnyActorRef;
  /** Attempts whose task_finished this orchestrator wrote, by `task#attempt`. */
  private readonly finished = new Set<string>();

  constructor(
    private readonly paths: RunPaths,
    private readonly runId: string,
    private readonly log: Logger,
    write: WriteOptions,
  ) {
    this.write = write;
  }

  // The live machine that committed input events are handed to.
  attach(actor: AnyActorRef): void {
    this.actor = actor;
  }

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

  // Whether this orchestrator already wrote the attempt's task_finished.
  isFinished(taskId: string, attempt: number): boolean {
    return this.finished.has(`${taskId}#${attempt}`);
  }
}

function detail(event: TeamEvent): Record<string, unknown> {
  const { event: _e, at: _a, run_id: _r, ...rest } = event as unknown as Record<string, unknown>;
  return rest;
}
