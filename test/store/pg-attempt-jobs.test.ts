// Attempts as pg-boss jobs: a step's events and its attempts' jobs commit together; the worker's
// leases and reports, and the writer's read of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptJobId, attemptQueue, ATTEMPT_QUEUE } from '../../src/store/pg/attempt-job.js';
import { renewLease, takeAttempts, type LeaseHolder } from '../../src/store/pg/leases.js';
import { closeQueue, openQueue } from '../../src/store/pg/queue.js';
import { readWorkerNews, writeReport } from '../../src/store/pg/reports.js';
import { lastRequestId, listenRequests, readRequests, writeRequest } from '../../src/store/pg/requests.js';
import { appendStep } from '../../src/store/pg/step.js';
import { CancelWatch } from '../../src/team-worker/cancel.js';
import { PgStore } from '../../src/store/pg/store.js';
import { startCluster, type PgCluster } from '../helpers/postgres.js';
import { shJob, started } from './attempt-records.js';
import { openPgFixture } from './pg-fixture.js';
import { entered, finished, RUN_FIELDS } from './records.js';
import { waitFor } from '../helpers/wait-event.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

// A fresh database with its store, a raw connection and pg-boss.
async function open() {
  const fx = await openPgFixture(cluster.url);
  const boss = await openQueue(fx.url, 'teamline test');
  const store = fx.store as PgStore;
  await store.createRun(RUN_FIELDS, 'run-1');
  return { ...fx, store, boss, cleanup: async () => (await closeQueue(boss), await fx.cleanup()) };
}

const holder = (workerId: string, ttlMs = 60_000): LeaseHolder => ({ workerId, host: 'host-a', bootId: 'boot-a', ttlMs });

async function jobsOf(raw: { query: (sql: string) => Promise<{ rows: Array<{ id: string; state: string; data: { taskId: string } }> }> }) {
  return (await raw.query(`SELECT id, state, data FROM pgboss.job WHERE name = '${ATTEMPT_QUEUE}' ORDER BY data->>'taskId'`)).rows;
}

describe('src/store/pg-step', () => {
  it('commits a step and the job of each attempt it starts, the job id derived from the attempt', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [entered('team-exec'), started('t1', 1), started('t2', 1)], [shJob('run-1', 't1', 1), shJob('run-1', 't2', 1)]);
      expect((await fx.store.read('run-1')).events.map((e) => e.event)).toEqual(['stage_entered', 'task_started', 'task_started']);
      const jobs = await jobsOf(fx.raw);
      expect(jobs.map((j) => [j.id, j.state, j.data.taskId])).toEqual([
        [attemptJobId('run-1', 't1', 1), 'created', 't1'],
        [attemptJobId('run-1', 't2', 1), 'created', 't2'],
      ]);
      expect(jobs[0]!.data).toEqual(shJob('run-1', 't1', 1));
    } finally {
      await fx.cleanup();
    }
  });

  it('sends an attempt once: a replay’s second send of the same attempt is a no-op', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1, 'echo first')]);
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1, 'echo second')]);
      const jobs = await jobsOf(fx.raw);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.data).toEqual(shJob('run-1', 't1', 1, 'echo first'));
      expect(attemptJobId('run-1', 't1', 2)).not.toBe(attemptJobId('run-1', 't1', 1));
    } finally {
      await fx.cleanup();
    }
  });

  it('rolls the step’s events back when the send fails', async () => {
    const fx = await open();
    try {
      await fx.store.append('run-1', [entered('team-exec')]);
      await fx.raw.query(`CREATE FUNCTION refuse_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.data->>'taskId' = 'refused' THEN RAISE EXCEPTION 'job refused by the test'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse_job BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION refuse_job();`);
      const step = appendStep(fx.store, fx.boss, 'run-1', [started('ok', 1), started('refused', 1)], [shJob('run-1', 'ok', 1), shJob('run-1', 'refused', 1)]);
      await expect(step).rejects.toThrow('job refused by the test');
      expect((await fx.store.read('run-1')).events.map((e) => e.event)).toEqual(['stage_entered']);
      expect(await jobsOf(fx.raw)).toEqual([]);
    } finally {
      await fx.cleanup();
    }
  });

  it('refuses a step whose jobs do not match its task_started records, writing nothing', async () => {
    const fx = await open();
    try {
      await expect(appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [])).rejects.toThrow('run run-1: the step starts [t1#1] but its jobs are []');
      expect((await fx.store.read('run-1')).events).toEqual([]);
    } finally {
      await fx.cleanup();
    }
  });
});

describe('src/store/pg-leases and pg-reports', () => {
  it('gives each job to one worker with a lease, and fences reports to the lease’s holder', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1)]);
      const [taken, ...more] = await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 4, holder('w1'));
      expect(more).toEqual([]);
      expect(taken!.jobId).toBe(attemptJobId('run-1', 't1', 1));
      expect(await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 4, holder('w2'))).toEqual([]);
      const ref = { runId: 'run-1', taskId: 't1', attempt: 1 };
      expect(await writeReport(fx.store, ref, 'w2', 'event', { event: 'attempt_taken', pid: 1 })).toBe(false);
      expect(await writeReport(fx.store, ref, 'w1', 'event', { event: 'attempt_taken', pid: 7 })).toBe(true);
      expect(await writeReport(fx.store, ref, 'w1', 'finished', { result: { text: '{}' } })).toBe(true);
      expect(await writeReport(fx.store, ref, 'w1', 'finished', { result: { text: 'again' } })).toBe(false);
      const news = await readWorkerNews(fx.store, 'run-1', 0);
      expect(news.reports.map((r) => [r.seq, r.kind, r.workerId, r.body])).toEqual([
        [1, 'event', 'w1', { event: 'attempt_taken', pid: 7 }],
        [2, 'finished', 'w1', { result: { text: '{}' } }],
      ]);
      expect(news.position).toBe(2);
      expect((await readWorkerNews(fx.store, 'run-1', news.position)).reports).toEqual([]);
      await expect(fx.raw.query('UPDATE teamline.reports SET body = \'{}\'')).rejects.toThrow('teamline.reports: UPDATE refused, the log is append-only');
      await expect(fx.raw.query('DELETE FROM teamline.requests')).rejects.toThrow('teamline.requests: DELETE refused, the log is append-only');
    } finally {
      await fx.cleanup();
    }
  });

  it('reports a lease not renewed in time as expired until the writer ends its attempt, and then refuses its renewal', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1)]);
      const [taken] = await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 1, holder('w1', 1));
      let news = await readWorkerNews(fx.store, 'run-1', 0);
      while (news.expired.length === 0) news = await readWorkerNews(fx.store, 'run-1', 0);
      expect(news.expired.map((l) => [l.taskId, l.attempt, l.workerId, l.host, l.bootId])).toEqual([['t1', 1, 'w1', 'host-a', 'boot-a']]);
      await fx.store.append('run-1', [finished('t1', 1, 'interrupted')]);
      expect((await readWorkerNews(fx.store, 'run-1', 0)).expired).toEqual([]);
      expect(await renewLease(fx.store, taken!.job, holder('w1'))).toBe(false);
      expect(await writeReport(fx.store, { runId: 'run-1', taskId: 't1', attempt: 1 }, 'w1', 'finished', {})).toBe(false);
    } finally {
      await fx.cleanup();
    }
  });

  it('gives an attempt that names a label only to a worker that serves it', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1), started('t2', 1)], [shJob('run-1', 't1', 1, 'true', { label: 'gpu' }), shJob('run-1', 't2', 1)]);
      const plain = await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 4, holder('w1'));
      expect(plain.map((t) => t.job.taskId)).toEqual(['t2']);
      const gpu = await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE, attemptQueue('gpu')], 4, holder('w2'));
      expect(gpu.map((t) => [t.queue, t.job.taskId])).toEqual([['team-attempts.gpu', 't1']]);
    } finally {
      await fx.cleanup();
    }
  });

  it('records requests in commit order and announces each on teamline_run', async () => {
    const fx = await open();
    const heard: string[] = [];
    const listener = await listenRequests(fx.url, 'teamline test listener', (runId) => heard.push(runId));
    try {
      expect(await lastRequestId(fx.store, 'run-1')).toBe(0);
      const first = await writeRequest(fx.store, 'run-1', 'cancel', { by: 'a' });
      const second = await writeRequest(fx.store, 'run-1', 'resume', { by: 'b' });
      expect((await readRequests(fx.store, 'run-1', 0)).map((r) => [r.id, r.kind, r.body])).toEqual([
        [first, 'cancel', { by: 'a' }],
        [second, 'resume', { by: 'b' }],
      ]);
      expect((await readRequests(fx.store, 'run-1', first)).map((r) => r.kind)).toEqual(['resume']);
      expect(await lastRequestId(fx.store, 'run-1')).toBe(second);
      await expect(writeRequest(fx.store, 'no-such-run', 'cancel', {})).rejects.toThrow('--run: no run no-such-run in the store');
      while (heard.length < 2) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['run-1', 'run-1']);
    } finally {
      await listener.close();
      await fx.cleanup();
    }
  });

  it('makes a listening connection the server ended again, says so, and hears the requests after it', async () => {
    const fx = await open();
    const heard: string[] = [];
    let gaps = 0;
    const name = 'teamline test listener that loses its connection';
    const listener = await listenRequests(fx.url, name, (runId) => heard.push(runId), () => (gaps += 1));
    const until = (done: () => boolean) => waitFor('the listener to hear it', done, 10_000);
    try {
      const backends = async () => (await fx.raw.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [name])).rows.map((r) => r.pid);
      const [first] = await backends();
      expect(first).toBeDefined();
      // The server ends the backend, as a restart or a dropped network would.
      await fx.raw.query('SELECT pg_terminate_backend($1)', [first]);
      await until(() => gaps === 1);
      const [second] = await backends();
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      await writeRequest(fx.store, 'run-1', 'cancel', { by: 'after the drop' });
      await until(() => heard.length === 1);
      expect(heard).toEqual(['run-1']);
      await listener.close();
      // Closed: no connection is made again.
      await new Promise((r) => setTimeout(r, 300));
      expect(await backends()).toEqual([]);
      expect(gaps).toBe(1);
    } finally {
      await listener.close();
      await fx.cleanup();
    }
  });

  it('has a worker read, after its listener was away, the cancel whose notification it missed, and stop that run\'s attempts only', async () => {
    const fx = await open();
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-2');
      const watch = new CancelWatch(fx.store, () => undefined);
      const stopped: string[] = [];
      const attempt = (name: string) => ({ taskId: 't1', attempt: 1, done: Promise.resolve(), stop: async (reason: string) => void stopped.push(`${name}: ${reason}`), hasTools: () => false, stopAfter: async (_graceMs: number, reason: string) => void stopped.push(`${name}: ${reason}`) });
      await watch.track('run-1', attempt('run-1 t1'));
      await watch.track('run-2', attempt('run-2 t1'));
      // Committed while nobody listened: no notification reaches the worker.
      await writeRequest(fx.store, 'run-1', 'cancel', { by: 'team cancel' });
      await writeRequest(fx.store, 'run-2', 'resume', { by: 'team resume' });
      expect(stopped).toEqual([]);
      await watch.onGap();
      expect(stopped).toEqual(['run-1 t1: the run was cancelled']);
      // Read once: a second gap finds nothing new.
      await watch.onGap();
      expect(stopped).toHaveLength(1);
    } finally {
      await fx.cleanup();
    }
  });

  it('takes a spend report once: the same report sent again (its number) is refused, a new total is taken', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1)]);
      await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 1, holder('w1'));
      const ref = { runId: 'run-1', taskId: 't1', attempt: 1 };
      const spend = (n: number, cost: number) => ({ event: 'attempt_spend', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'fixture', cost_usd: cost, n });
      expect(await writeReport(fx.store, ref, 'w1', 'event', spend(1, 0.5))).toBe(true);
      expect(await writeReport(fx.store, ref, 'w1', 'event', spend(1, 0.5))).toBe(false);
      expect(await writeReport(fx.store, ref, 'w1', 'event', spend(2, 0.7))).toBe(true);
      // Only spend is numbered so: another event of the attempt is taken beside it.
      expect(await writeReport(fx.store, ref, 'w1', 'event', { event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5, n: 1 })).toBe(true);
      const news = await readWorkerNews(fx.store, 'run-1', 0);
      expect(news.reports.map((r) => [r.seq, r.kind, r.body.event, r.body.n])).toEqual([
        [1, 'event', 'attempt_spend', 1],
        [2, 'event', 'attempt_spend', 2],
        [3, 'event', 'attempt_stalled', 1],
      ]);
    } finally {
      await fx.cleanup();
    }
  });

  it('has a worker stop the one attempt a stop request names, with its reason, also when it was asked before the attempt came', async () => {
    const fx = await open();
    try {
      const watch = new CancelWatch(fx.store, () => undefined);
      const stopped: string[] = [];
      const attempt = (taskId: string) => ({ taskId, attempt: 1, done: Promise.resolve(), hasTools: () => false, stopAfter: async () => undefined, stop: async (reason: string) => void stopped.push(`${taskId}: ${reason}`) });
      // Asked before the worker took t2 a1 (the writer stopped it as it was being taken).
      await writeRequest(fx.store, 'run-1', 'stop', { task_id: 't2', attempt: 1, reason: 'budget spent: $0.50 of $0.30' });
      await watch.track('run-1', attempt('t1'));
      await watch.track('run-1', attempt('t2'));
      expect(stopped).toEqual(['t2: budget spent: $0.50 of $0.30']);
      await writeRequest(fx.store, 'run-1', 'stop', { task_id: 't1', attempt: 1, reason: 'budget spent: $0.60 of $0.30' });
      await watch.onRequest('run-1');
      expect(stopped).toEqual(['t2: budget spent: $0.50 of $0.30', 't1: budget spent: $0.60 of $0.30']);
      // A stop is acted on once.
      await watch.onGap();
      expect(stopped).toHaveLength(2);
    } finally {
      await fx.cleanup();
    }
  });

  it('cancels, never runs, a queued job whose attempt the log has ended', async () => {
    const fx = await open();
    try {
      await appendStep(fx.store, fx.boss, 'run-1', [started('t1', 1)], [shJob('run-1', 't1', 1)]);
      await fx.store.append('run-1', [finished('t1', 1, 'interrupted')]);
      expect(await takeAttempts(fx.store, fx.boss, [ATTEMPT_QUEUE], 1, holder('w1'))).toEqual([]);
      expect((await jobsOf(fx.raw)).map((j) => j.state)).toEqual(['cancelled']);
    } finally {
      await fx.cleanup();
    }
  });
});

