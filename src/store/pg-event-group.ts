// Group commit for a run whose log is in PostgreSQL: each flush's events, and the job of each attempt
// a task_started among them starts, commit in one transaction (pg-step.ts), after the one before it.
// An event is made (its time, its name) when it is appended, as the file store makes it.
import type PgBoss from 'pg-boss';
import type { NewEvent, TeamEvent } from '../log/schema.js';
import { GroupCommit } from '../log/group-commit.js';
import type { EventSink } from '../log/event-group.js';
import { eventFileName } from '../log/write.js';
import { nowIso } from '../log/time.js';
import type { AttemptJob } from './attempt-job.js';
import { appendMadeStep } from './pg-step.js';
import type { PgStore } from './pg-store.js';

type Made = { event: TeamEvent; name: string };

export class PgEventGroup extends GroupCommit<Made> implements EventSink {
  /** The job of each attempt whose task_started is appended or about to be, by `task#attempt`. */
  private readonly jobs = new Map<string, () => AttemptJob>();

  constructor(
    private readonly store: PgStore,
    private readonly boss: PgBoss,
    private readonly runId: string,
  ) {
    super();
  }

  add<E extends NewEvent>(event: E): { full: E & { at: string; run_id: string }; name: string } {
    const full = { ...event, at: nowIso(), run_id: this.runId } as E & { at: string; run_id: string };
    const name = eventFileName(full);
    this.stage({ event: full as unknown as TeamEvent, name });
    return { full, name };
  }

  // How to make the job of an attempt: the commit that writes its task_started sends it with it.
  expectJob(taskId: string, attempt: number, make: () => AttemptJob): void {
    this.jobs.set(`${taskId}#${attempt}`, make);
  }

  protected async commit(batch: Made[]): Promise<void> {
    const jobs = batch.flatMap(({ event }) => {
      if (event.event !== 'task_started') return [];
      const key = `${event.task_id}#${event.attempt}`;
      const make = this.jobs.get(key);
      // Our bug: every attempt the machine starts is an attempt effect that says how to make its job.
      if (!make) throw new Error(`run ${this.runId}: no job for ${event.task_id} a${event.attempt}, whose task_started is being committed`);
      this.jobs.delete(key);
      return [make()];
    });
    await appendMadeStep(this.store, this.boss, this.runId, batch, jobs);
  }
}
