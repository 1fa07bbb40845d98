// The worker's side of the attempt queue: take jobs with their leases in one transaction, renew a
// lease, end a job. A lease names its worker, host and boot; it lives until its worker stops renewing.
import type PgBoss from 'pg-boss';
import { attemptJobSchema, type AttemptJob } from './attempt-job.js';
import { onClient } from './queue.js';
import type { PgStore } from './store.js';

// Who holds leases, and for how long each renewal keeps one.
export interface LeaseHolder {
  workerId: string;
  host: string;
  bootId: string;
  ttlMs: number;
}

// A job taken: its queue and id (for complete and fail) and the attempt it carries.
export interface TakenAttempt {
  queue: string;
  jobId: string;
  job: AttemptJob;
}

// Whether an attempt already has its terminal record in the log ($1 run, $2 task, $3 attempt).
const ENDED = `EXISTS (SELECT 1 FROM teamline.events e WHERE e.run_id = $1 AND e.body->>'event' = 'task_finished' AND e.body->>'task_id' = $2 AND (e.body->>'attempt')::int = $3)`;

const TAKE = `
INSERT INTO teamline.leases (run_id, task_id, attempt, queue, job_id, worker_id, host, boot_id, expires_at)
SELECT $1, $2, $3, $9, $4, $5, $6, $7, clock_timestamp() + $8 * interval '1 millisecond'
WHERE EXISTS (SELECT 1 FROM teamline.runs WHERE run_id = $1) AND NOT ${ENDED}
ON CONFLICT DO NOTHING`;

const RENEW = `
UPDATE teamline.leases SET renewed_at = clock_timestamp(), expires_at = clock_timestamp() + $5 * interval '1 millisecond'
WHERE run_id = $1 AND task_id = $2 AND attempt = $3 AND worker_id = $4 AND expires_at > clock_timestamp() AND NOT ${ENDED}`;

// Takes up to `max` jobs from `queues`, in order, each with a new lease; all in one transaction, so
// a worker that dies meanwhile leaves the jobs queued. A job whose data does not parse is failed; a
// job whose attempt ended already, or is leased, is cancelled: neither runs.
export async function takeAttempts(store: PgStore, boss: PgBoss, queues: string[], max: number, holder: LeaseHolder): Promise<TakenAttempt[]> {
  return store.transaction(async (client) => {
    const db = onClient(client);
    const taken: TakenAttempt[] = [];
    for (const queue of queues) {
      if (taken.length >= max) break;
      for (const fetched of await boss.fetch<unknown>(queue, { batchSize: max - taken.length, db })) {
        const parsed = attemptJobSchema().safeParse(fetched.data);
        if (!parsed.success) {
          await boss.fail(queue, fetched.id, { reason: `not an attempt job: ${parsed.error.issues[0]?.message}` }, { db });
          continue;
        }
        const job = parsed.data;
        const lease = await client.query(TAKE, [job.runId, job.taskId, job.attempt, fetched.id, holder.workerId, holder.host, holder.bootId, holder.ttlMs, queue]);
        if (lease.rowCount === 1) taken.push({ queue, jobId: fetched.id, job });
        else await boss.cancel(queue, fetched.id, { db });
      }
    }
    return taken;
  });
}

// Renews the attempt's lease: false when it is gone (expired, or the attempt ended in the log).
export async function renewLease(store: PgStore, job: AttemptJob, holder: LeaseHolder): Promise<boolean> {
  const renewed = await store.transaction((client) => client.query(RENEW, [job.runId, job.taskId, job.attempt, holder.workerId, holder.ttlMs]));
  return renewed.rowCount === 1;
}

// Whether `workerId` still holds the attempt's lease: not expired, and the attempt not ended in the log.
export async function leaseHeld(store: PgStore, ref: { runId: string; taskId: string; attempt: number }, workerId: string): Promise<boolean> {
  const held = await store.transaction((client) =>
    client.query(`SELECT 1 FROM teamline.leases WHERE run_id = $1 AND task_id = $2 AND attempt = $3 AND worker_id = $4 AND expires_at > clock_timestamp() AND NOT ${ENDED}`, [ref.runId, ref.taskId, ref.attempt, workerId]),
  );
  return held.rowCount === 1;
}

// Completes the job once its finished report committed; false when it is no longer active.
export async function completeJob(boss: PgBoss, taken: TakenAttempt): Promise<boolean> {
  // pg-boss 10 returns { affected } though its types say void.
  const done = (await boss.complete(taken.queue, taken.jobId)) as unknown as { affected: number };
  return done.affected === 1;
}

// Fails the job of an attempt the worker gave up (its lease was gone).
export async function failJob(boss: PgBoss, taken: TakenAttempt, reason: string): Promise<void> {
  await boss.fail(taken.queue, taken.jobId, { reason });
}

// Cancels the attempt's job unless a worker has taken it: true when it was cancelled before any
// worker took it (it will never run), false when a worker holds (or held) its lease. One transaction:
// a worker taking the job at the same moment holds its row, so the cancel waits and then sees the lease.
export async function cancelUntakenJob(store: PgStore, boss: PgBoss, ref: { runId: string; taskId: string; attempt: number }, queue: string, jobId: string): Promise<boolean> {
  return store.transaction(async (client) => {
    await boss.cancel(queue, jobId, { db: onClient(client) });
    const lease = await client.query('SELECT 1 FROM teamline.leases WHERE run_id = $1 AND task_id = $2 AND attempt = $3', [ref.runId, ref.taskId, ref.attempt]);
    return lease.rowCount === 0;
  });
}
