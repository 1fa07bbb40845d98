// Leases: a worker killed with kill -9 lets its lease expire, the writer reads the attempt as
// expired, the next attempt runs on another worker, and a worker that comes back on the killed one's
// folder stops the agent left running; a worker whose lease is taken away, or that cannot renew it,
// stops its agent.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isRunning } from '../helpers/proc-groups.js';
import { reportName, takenAgent } from '../helpers/worker-reports.js';
import { clusterAndProject } from '../store/pg-fixture.js';
import { finished } from '../store/records.js';
import { closeWorlds, openWorld, readLedger, until } from './worker-fixture.js';

const env = clusterAndProject('teamline-lease-');
const worlds = closeWorlds();
// A short lease, so that the tests wait for an expiry in seconds, yet long enough that a loaded
// machine renews it in time (renewed every second; given up after 3 s without a renewal).
const TTL = ['--lease-ttl', '4'];

describe('team worker leases', () => {
  it('lets the lease of a worker killed with kill -9 expire; the next attempt runs on the other worker, nothing twice', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]]);
    const a = world.worker('machine-a', TTL);
    const [taken] = await world.reportsOf('t1', 1, 'attempt_taken');
    await until(() => readLedger(env.project).length === 1, 'attempt 1 started');
    a.child.kill('SIGKILL');
    await a.child;
    const expired = await until(async () => {
      const news = await world.news();
      return news.expired.length > 0 && news.expired;
    }, 'the lease to expire');
    expect(expired.map((l) => [l.taskId, l.attempt, l.workerId])).toEqual([['t1', 1, taken!.workerId]]);
    // The other worker is idle: attempt 1's job is taken, so it is never run twice.
    const b = world.worker('machine-b');
    // The writer: attempt 1 interrupted and attempt 2 started, in one step.
    await world.start([['t1', 2]], false, [finished('t1', 1, 'interrupted')]);
    expect((await world.news()).expired).toEqual([]);
    expect((await world.jobStates()).find((j) => j.attempt === 1)).toEqual({ task: 't1', attempt: 1, state: 'failed' });
    const reports = await world.reportsOf('t1', 2, 'finished');
    expect(reports.every((r) => r.workerId !== taken!.workerId)).toBe(true);
    expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`, `t1 a2 start ${b.dir}`, `t1 a2 done ${b.dir}`]);
    // Attempt 1's agent ran on without its worker; a worker that comes back on that folder stops it.
    const handle = takenAgent(taken!)!;
    expect(isRunning(handle.pid)).toBe(true);
    world.worker('machine-a', TTL);
    await until(() => !isRunning(handle.pid), 'the agent left behind to be stopped');
    expect(readLedger(env.project)).toHaveLength(3);
  });

  it('stops its agent when its lease is taken away, reporting nothing and failing the job', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]]);
    const a = world.worker('machine-a', TTL);
    const [taken] = await world.reportsOf('t1', 1, 'attempt_taken');
    await until(() => readLedger(env.project).length === 1, 'the agent started');
    // The writer ended the attempt (as it does for an expired lease or a cancel): the lease is gone.
    await world.store.append(world.runId, [finished('t1', 1, 'interrupted')]);
    const handle = takenAgent(taken!)!;
    await until(() => !isRunning(handle.pid), 'the agent stopped');
    await until(async () => (await world.jobStates())[0]?.state === 'failed', 'the job failed');
    expect((await world.news()).reports.map(reportName)).toEqual(['attempt_taken']);
    expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`]);
    expect(a.child.exitCode).toBe(null);
  });

  it('stops its agent itself when it cannot reach the store to renew its lease', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]]);
    const a = world.worker('machine-a', TTL);
    const [taken] = await world.reportsOf('t1', 1, 'attempt_taken');
    await until(() => readLedger(env.project).length === 1, 'the agent started');
    // The worker's connections end and new ones are refused: it cannot renew, the writer's stay open.
    const database = new URL(world.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: env.cluster.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    try {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'teamline worker %'", [database]);
      const handle = takenAgent(taken!)!;
      await until(() => !isRunning(handle.pid), 'the agent stopped');
      expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`]);
      expect(a.child.exitCode).toBe(null);
    } finally {
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    a.child.kill('SIGTERM');
    const ended = await a.child;
    expect(ended.exitCode).toBe(0);
    expect(String(ended.stderr)).toContain(`${world.runId} t1 a1: its lease could not be renewed for 3 s: stopping its agent`);
  });
});
