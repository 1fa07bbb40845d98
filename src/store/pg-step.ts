// The writer's append with PostgreSQL: one machine step's records and the job of each attempt the
// step starts commit in one transaction. A replay's second send of an attempt is a no-op (the job id
// is derived from the attempt); a send that fails rolls the step back.
import type PgBoss from 'pg-boss';
import type { NewEvent, TeamEvent } from '../../machines/events.js';
import { attemptJobId, attemptQueue, type AttemptJob } from './attempt-job.js';
import { ensureAttemptQueue, onClient } from './pg-queue.js';
import type { PgStore } from './pg-store.js';

// Appends the step; `jobs` holds one job for each task_started among `records`, and no other.
export async function appendStep(store: PgStore, boss: PgBoss, runId: string, records: NewEvent[], jobs: AttemptJob[]): Promise<TeamEvent[]> {
  checkJobs(runId, records, jobs);
  // Queues are made outside the transaction: making one is idempotent, and harmless if the step rolls back.
  for (const label of new Set(jobs.map((job) => job.label))) await ensureAttemptQueue(boss, label);
  return store.append(runId, records, async (client) => {
    const db = onClient(client);
    for (const job of jobs) {
      const id = attemptJobId(job.runId, job.taskId, job.attempt);
      const queue = attemptQueue(job.label);
      const sent = await boss.send(queue, job, { id, db, retryLimit: 0 });
      // null: a job with this id exists (a replay's second send), or pg-boss refused it silently.
      if (sent === null && (await boss.getJobById(queue, id, { db, includeArchive: true })) === null) {
        throw new Error(`run ${runId}: the job of ${job.taskId} a${job.attempt} was not enqueued in ${queue}`);
      }
    }
  });
}

// Our own bug when the jobs do not match the step's task_started records one for one.
function checkJobs(runId: string, records: NewEvent[], jobs: AttemptJob[]): void {
  const key = (task: string, attempt: number) => `${task}#${attempt}`;
  const started = records.flatMap((r) => (r.event === 'task_started' ? [key(r.task_id, r.attempt)] : []));
  const sent = jobs.map((job) => key(job.taskId, job.attempt));
  const same = started.length === sent.length && started.every((k) => sent.includes(k)) && new Set(sent).size === sent.length;
  if (!same || jobs.some((job) => job.runId !== runId)) {
    throw new Error(`run ${runId}: the step starts [${started.join(', ')}] but its jobs are [${sent.join(', ')}] of runs ${[...new Set(jobs.map((j) => j.runId))].join(', ')}`);
  }
}
