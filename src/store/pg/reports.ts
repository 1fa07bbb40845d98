// Reports: what workers say about the attempts they hold, and what the run's writer reads back to
// turn into events (workers never write the log). The writer also learns which leases expired.
import { REPORT_KINDS, type ReportKind } from './schema-workers.js';
import type { Transactor } from './transactor.js';

export { REPORT_KINDS, type ReportKind };

// One attempt of one task of one run.
export interface AttemptRef {
  runId: string;
  taskId: string;
  attempt: number;
}

// A report as the writer reads it; seq orders a run's reports in the order they committed.
export interface Report {
  seq: number;
  taskId: string;
  attempt: number;
  workerId: string;
  kind: ReportKind;
  body: Record<string, unknown>;
  at: string;
}

// A lease its worker stopped renewing before the attempt ended: that attempt is interrupted.
export interface ExpiredLease {
  taskId: string;
  attempt: number;
  workerId: string;
  host: string;
  bootId: string;
  expiresAt: string;
}

// What the writer has not folded yet: reports after `since`, expired leases, and the next position.
export interface WorkerNews {
  reports: Report[];
  expired: ExpiredLease[];
  /** The seq of the last report read (`since` when there is none): the next call's `since`. */
  position: number;
}

// Per run, report inserts queue on this lock, so seq is handed out in commit order.
const REPORT_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('teamline:reports:' || $1, 0))";

// Only the lease's holder reports, and never for an attempt the log has ended.
const INSERT = `
INSERT INTO teamline.reports (run_id, seq, task_id, attempt, worker_id, kind, body)
SELECT $1, coalesce((SELECT max(seq) FROM teamline.reports WHERE run_id = $1), 0) + 1, $2, $3, $4, $5, $6::jsonb
WHERE EXISTS (SELECT 1 FROM teamline.leases l WHERE l.run_id = $1 AND l.task_id = $2 AND l.attempt = $3 AND l.worker_id = $4)
  AND NOT EXISTS (SELECT 1 FROM teamline.events e WHERE e.run_id = $1 AND e.body->>'event' = 'task_finished' AND e.body->>'task_id' = $2 AND (e.body->>'attempt')::int = $3)
ON CONFLICT DO NOTHING`;

// An expired lease whose attempt has neither a finished report nor a terminal record.
const EXPIRED = `
SELECT l.task_id, l.attempt, l.worker_id, l.host, l.boot_id, l.expires_at
FROM teamline.leases l
WHERE l.run_id = $1 AND l.expires_at < clock_timestamp()
  AND NOT EXISTS (SELECT 1 FROM teamline.reports r WHERE r.run_id = l.run_id AND r.task_id = l.task_id AND r.attempt = l.attempt AND r.kind = 'finished')
  AND NOT EXISTS (SELECT 1 FROM teamline.events e WHERE e.run_id = l.run_id AND e.body->>'event' = 'task_finished' AND e.body->>'task_id' = l.task_id AND (e.body->>'attempt')::int = l.attempt)
ORDER BY l.expires_at, l.task_id, l.attempt`;

// Writes a report of the worker's attempt; false when fenced off (not its lease, the attempt ended,
// or a second finished report).
export async function writeReport(store: Transactor, ref: AttemptRef, workerId: string, kind: ReportKind, body: object): Promise<boolean> {
  return store.transaction(async (client) => {
    await client.query(REPORT_LOCK, [ref.runId]);
    const written = await client.query(INSERT, [ref.runId, ref.taskId, ref.attempt, workerId, kind, JSON.stringify(body)]);
    return written.rowCount === 1;
  });
}

// The writer's read: reports after `since` in seq order and the expired leases, from one snapshot.
export async function readWorkerNews(store: Transactor, runId: string, since: number): Promise<WorkerNews> {
  return store.transaction(async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const rows = await client.query<{ seq: string; task_id: string; attempt: number; worker_id: string; kind: ReportKind; body: Record<string, unknown>; at: Date }>(
      'SELECT seq, task_id, attempt, worker_id, kind, body, at FROM teamline.reports WHERE run_id = $1 AND seq > $2 ORDER BY seq',
      [runId, since],
    );
    const reports = rows.rows.map((r) => ({ seq: Number(r.seq), taskId: r.task_id, attempt: r.attempt, workerId: r.worker_id, kind: r.kind, body: r.body, at: r.at.toISOString() }));
    const leases = await client.query<{ task_id: string; attempt: number; worker_id: string; host: string; boot_id: string; expires_at: Date }>(EXPIRED, [runId]);
    const expired = leases.rows.map((l) => ({ taskId: l.task_id, attempt: l.attempt, workerId: l.worker_id, host: l.host, bootId: l.boot_id, expiresAt: l.expires_at.toISOString() }));
    return { reports, expired, position: reports.at(-1)?.seq ?? since };
  });
}
