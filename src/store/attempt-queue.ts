// The queue of attempts on PostgreSQL, as its two sides use it (the rest of src/store/pg/ is the
// store's own). The run's writer (src/remote/) puts a run's attempts on it, reads what the team
// workers report and asks them to stop a run's attempts; a team worker (src/team-worker/) takes
// attempts under a lease, reports on them and completes or fails their jobs.

// The store and its queue: opened, closed, named without secrets.
export { PgStore } from './pg/store.js';
export { closeQueue, ensureAttemptQueue, openQueue } from './pg/queue.js';
export { describeUrl } from './pg/connect.js';

// An attempt's job: what a team worker needs to run it, where it is queued, its id.
export { ATTEMPT_QUEUE, attemptJobId, attemptQueue, type AttemptJob } from './pg/attempt-job.js';

// The lease a team worker holds on an attempt it took, and the job's end.
export { cancelUntakenJob, completeJob, failJob, leaseHeld, renewLease, takeAttempts, type LeaseHolder, type TakenAttempt } from './pg/leases.js';

// What the team workers report on their attempts, as the writer reads it.
export { readWorkerNews, writeReport, type ExpiredLease, type Report } from './pg/reports.js';

// The run's requests to its writer and its team workers (a cancel), and how they are heard at once.
export { lastRequestId, listenRequests, readRequests, writeRequest, type RunRequest } from './pg/requests.js';
