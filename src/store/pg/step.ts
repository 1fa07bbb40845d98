// The writer's append with PostgreSQL: one machine step's records and the job of each attempt the
// step starts commit in one transaction. A replay's second send of an attempt is a no-op (the job id
// is derived from the attempt); a send that fails rolls the step back. An attempt the step ends after
// its worker's lease expired has its job failed in the same transaction.
import type PgBoss from 'pg-boss';
import type pg from 'pg';
import type { NewEvent, TeamEvent } from '../../log/schema.js';
import { eventFileName } from '../../log/write.js';
import { nowIso } from '../../log/time.js';
import { attemptJobId, attemptQueue, type AttemptJob } from './attempt-job.js';
import { ensureAttemptQueue, onClient } from './queue.js';
import type { PgStore } from './store.js';
import { endedBy } from '../terminal.js';

// Appends the step; `jobs` holds one job for each task_started among `records`, and no other.
export async function appendStep(store: PgStore, boss: PgBoss, runId: string, records: NewEvent[], jobs: AttemptJob[]): Promise<TeamEvent[]> {
  const full = records.map((r) => ({ ...r, at: nowIso(), run_id: runId }) as TeamEvent);
  await appendMadeStep(store, boss, runId, full.map((event) => ({ event, name: eventFileName(event) })), jobs);
  return full;
}

// The same step of events already made, as the run's writer commits them (pg-event-group.ts).
export async function appendMadeStep(store: PgStore, boss: PgBoss, runId: string, made: Array<{ event: TeamEvent; name: string }>, jobs: AttemptJob[]): Promise<void> {
  const records = made.map((m) => m.event);
  checkJobs(runId, records, jobs);
  // Queues are made outside the transaction: making one is idempotent, and harmless if the step rolls back.
  for (const label of new Set(jobs.map((job) => job.label))) await ensureAttemptQueue(boss, label);
  await store.appendMade(runId, made, async (client) => {
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
    await failJobsOfExpiredLeases(boss, client, runId, records);
  });
}

// An attempt the step ends whose worker let its lease expire: its job, still active with nobody
// working it, is failed with that reason (a live worker ends its own job).
async function failJobsOfExpiredLeases(boss: PgBoss, client: pg.ClientBase, runId: string, records: NewEvent[]): Promise<void> {
  const ended = endedBy(records);
  if (ended.length === 0) return;
  const leases = await client.query<{ queue: string; job_id: string; worker_id: string }>(
    'SELECT l.queue, l.job_id, l.worker_id FROM teamline.leases l JOIN unnest($2::text[], $3::int[]) AS e(task, attempt) ON l.task_id = e.task AND l.attempt = e.attempt WHERE l.run_id = $1 AND l.expires_at < clock_timestamp()',
    [runId, ended.map((k) => k.task), ended.map((k) => k.attempt)],
  );
  for (const lease of leases.rows) await boss.fail(lease.queue, lease.job_id, { reason: `the lease of worker ${lease.worker_id} expired` }, { db: onClient(client) });
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
