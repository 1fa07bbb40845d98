// Group commit for a run whose log is in PostgreSQL: each flush's events, and the job of each attempt
// a task_started among them starts, commit in one transaction (pg-step.ts), after the one before it.
// An event is made (its time, its name) when it is appended, as the file store makes it.
import type PgBoss from 'pg-boss';
import type { NewEvent, TeamEvent } from '../../log/schema.js';
import { GroupCommit } from '../../log/group-commit.js';
import type { EventSink } from '../../log/event-group.js';
import { eventFileName } from '../../log/write.js';
import { nowIso } from '../../log/time.js';
import type { AttemptJob } from './attempt-job.js';
import { isConnectionLoss } from './connect.js';
import type { KeptWriterLock } from './kept-lock.js';
import { appendMadeStep } from './step.js';
import type { PgStore } from './store.js';

type Made = { event: TeamEvent; name: string };

// Between two tries of a step whose connection went away: the first wait, doubled up to the last.
const RETRY_FIRST_MS = 250;
const RETRY_LAST_MS = 4_000;

export class PgEventGroup extends GroupCommit<Made> implements EventSink {
  /** The job of each attempt whose task_started is appended or about to be, by `task#attempt`. */
  private readonly jobs = new Map<string, () => AttemptJob>();

  constructor(
    private readonly store: PgStore,
    private readonly boss: PgBoss,
    private readonly runId: string,
    private readonly lock?: KeptWriterLock,
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
    const last = batch.at(-1)?.name;
    if (!this.lock || last === undefined) return appendMadeStep(this.store, this.boss, this.runId, batch, jobs);
    // A commit whose connection went away may or may not have committed: once the lock is held again
    // (the store back, the log where this writer left it), the step is looked for by its names and
    // committed only if it is not there. Its names are unique in the log, so it never commits twice.
    const since = Date.now();
    for (let wait = RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RETRY_LAST_MS)) {
      await this.lock.held();
      this.lock.notePending(last);
      try {
        await appendMadeStep(this.store, this.boss, this.runId, batch, jobs);
        return this.lock.noteCommitted(last);
      } catch (error) {
        if (!isConnectionLoss(error) || Date.now() - since >= this.lock.outageMs) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
        await this.lock.held();
        if (await this.inLog(batch).catch(() => false)) return this.lock.noteCommitted(last);
      }
    }
  }

  // Whether the step's records are in the log (all of them: a step commits whole or not at all).
  private async inLog(batch: Made[]): Promise<boolean> {
    const found = await this.store.db.query<{ n: string }>('SELECT count(*) AS n FROM teamline.events WHERE run_id = $1 AND name = ANY($2::text[])', [this.runId, batch.map((m) => m.name)]);
    return Number(found.rows[0]!.n) === batch.length;
  }
}
