// The run's event log as one orchestrator writes it: every input is appended before the machine sees
// it, and every event is durable before the effects of the step that follows it start (group commit:
// the files of a step are written at once, their folder fsynced once by flush()).
import type { AnyActorRef } from 'xstate';
import type { NewEvent, TeamEvent } from '../../machines/events.js';
import { EventGroup, type RunPaths, type WriteOptions } from '../checkpoint/store.js';
import type { Logger } from '../logger.js';
import { toMachineEvent } from './replay.js';

export class EventLog {
  readonly write: WriteOptions;
  private actor?: AnyActorRef;
  private readonly group: EventGroup;
  /** Attempts whose task_finished this orchestrator wrote, by `task#attempt`. */
  private readonly finished = new Set<string>();

  constructor(
    paths: RunPaths,
    runId: string,
    private readonly log: Logger,
    write: WriteOptions,
  ) {
    this.write = write;
    this.group = new EventGroup(paths, runId, write);
  }

  // The live machine that committed input events are handed to.
  attach(actor: AnyActorRef): void {
    this.actor = actor;
  }

  // Appends an input event to the log, then hands it to the machine: the log is written first. The
  // input and the records of the step it causes are made durable together when the step is over.
  commit(event: NewEvent): TeamEvent {
    if (event.event === 'task_finished') this.finished.add(`${event.task_id}#${event.attempt}`);
    const full = this.append(event);
    const machineEvent = toMachineEvent(full);
    if (machineEvent && this.actor) this.actor.send(machineEvent);
    this.flush();
    return full;
  }

  // Appends a record or a fact the machine does not read; durable at the next flush().
  append(event: NewEvent): TeamEvent {
    const full = this.group.add(event) as TeamEvent;
    this.log.info(detail(full), full.event);
    return full;
  }

  // Makes every event appended so far durable (one folder fsync): every effect calls it before it starts.
  flush(): void {
    this.group.flush();
  }

  // Whether this orchestrator already wrote the attempt's task_finished.
  isFinished(taskId: string, attempt: number): boolean {
    return this.finished.has(`${taskId}#${attempt}`);
  }
}

// What log.jsonl says of an event: its name and identity; the event file holds the rest.
function detail(event: TeamEvent): Record<string, unknown> {
  const { task_id, attempt, stage, worker } = event as unknown as Record<string, unknown>;
  return { event: event.event, task_id, attempt, stage, worker };
}
