// The store survives its own restart: PostgreSQL stopped as a crash would stop it (`pg_ctl stop -m
// immediate`) in the middle of a run and started again; the orchestrator and the team workers ride
// it out: the run completes, no attempt runs twice, nothing recorded is lost, no stack trace.
import { describe, expect, it } from 'vitest';
import { until } from '../team-worker/worker-fixture.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

// Durable: what the server acknowledged survives its crash, as in any real deployment.
const env = clusterAndProject('teamline-store-restart-', { durable: true });
const worlds = closeScaleOuts();
const task = (id: string) => ({ id, title: `task ${id}`, acceptance: ['it works'] });

describe('a run on the PostgreSQL store when the store restarts', () => {
  it('completes after a restart of PostgreSQL in the middle of exec, each attempt once', { timeout: 180_000 }, async () => {
    const scenario = { name: 'store-restart', plan: { tasks: ['t1', 't2', 't3', 't4'].map(task) }, stages: { 'team-exec': { sleepMs: 1500 } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario));
    world.worker('machine-a', ['--max', '2']);
    world.worker('machine-b', ['--max', '2']);
    const run = world.team(['2:executor', 'add four greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.task_id.startsWith('t')), 'an exec attempt taken', 30_000);
    const wait = world.team(['wait', '--run', runId]);
    const watch = world.team(['watch', '--run', runId]);
    // Both follow the run before the store goes away (a store never reached is refused at once).
    const following = "SELECT count(DISTINCT application_name) AS n FROM pg_stat_activity WHERE application_name ~ '^teamline (wait|watch) pid '";
    await until(async () => Number((await world.store.db.query<{ n: string }>(following)).rows[0]!.n) === 2, 'the wait and the watch connected', 30_000);
    await env.cluster.restart(2_000);
    const ended = await run;
    for (const follower of [await wait, await watch]) {
      expect(String(follower.stderr)).not.toMatch(/\n\s+at /);
      expect(follower.exitCode, String(follower.stderr)).toBe(0);
    }
    expect(String(ended.stderr)).not.toMatch(/\n\s+at /);
    expect(ended.exitCode, String(ended.stderr)).toBe(0);
    const events = await world.events(runId);
    expect(events.at(-1)?.event).toBe('run_completed');
    const started = events.filter((e) => e.event === 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
    expect(new Set(started).size).toBe(started.length);
    const ledger = world.ledger().filter((l) => l.run === runId).map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(ledger).size).toBe(ledger.length);
    for (const machine of world.machines) expect(machine.child.exitCode).toBeNull();
  });

  it('waits and watches that meet the restart while they open the store or at their first look follow the run to its end; a status there names the store gone', { timeout: 180_000 }, async () => {
    const scenario = { name: 'store-restart-first-look', plan: { tasks: ['t1', 't2'].map(task) }, stages: { 'team-exec': { sleepMs: 1500 } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario));
    world.worker('machine-a', ['--max', '2']);
    const run = world.team(['2:executor', 'add two greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.task_id.startsWith('t')), 'an exec attempt taken', 30_000);
    const holder = await world.store.db.connect();
    holder.on('error', () => undefined);
    const waiting = async (names: string, query: string) => Number((await world.store.db.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name ~ '^teamline (${names}) pid ' AND wait_event_type = 'Lock' AND query ~ '${query}'`)).rows[0]!.n);
    // The runs table held by another session: these connect, check the schema, then their first look
    // (is there such a run?) waits on the lock.
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE teamline.runs IN ACCESS EXCLUSIVE MODE');
    const looking = [world.team(['wait', '--run', runId]), world.team(['watch', '--run', runId])];
    const status = world.team(['status', '--run', runId]);
    await until(async () => (await waiting('wait|watch|status', 'FROM teamline.runs WHERE run_id')) === 3, 'the wait, the watch and the status at their first look', 120_000);
    // The schema's lock held too, and the schema short of a piece (the requests' check as a store made
    // before 'stop' had it): these wait while they open the store, to make the piece. (A store whose
    // schema is whole is opened without the lock: its DDL would wait for busy tables.)
    await world.store.db.query("ALTER TABLE teamline.requests DROP CONSTRAINT requests_kind_check, ADD CONSTRAINT requests_kind_check CHECK (kind IN ('cancel', 'resume'))");
    await holder.query("SELECT pg_advisory_lock(hashtextextended('teamline:schema', 0))");
    const opening = [world.team(['wait', '--run', runId]), world.team(['watch', '--run', runId])];
    await until(async () => (await waiting('wait|watch', 'pg_advisory_xact_lock')) === 2, 'a wait and a watch opening the store', 120_000);
    await env.cluster.restart(2_000);
    holder.release(true);
    // A one-shot command is not a follower: it stops, naming the store and the cause, no stack.
    const shown = await status;
    expect(shown.exitCode).toBe(1);
    expect(String(shown.stderr)).toMatch(/^team: the store postgres(ql)?:\/\/\S+ went away \(.+\); what it recorded is as it was\n?$/);
    for (const follower of await Promise.all([...looking, ...opening])) {
      expect(String(follower.stderr)).not.toMatch(/\n\s+at /);
      expect(follower.exitCode, String(follower.stderr)).toBe(0);
    }
    const ended = await run;
    expect(ended.exitCode, String(ended.stderr)).toBe(0);
    expect(String((await looking[0]!).stdout)).toMatch(/completed/);
  });

  it('stops the run, resumable, when the store stays away past team.storeOutageMs; team resume then completes it', { timeout: 180_000 }, async () => {
    const scenario = { name: 'store-away', plan: { tasks: ['t1', 't2', 't3', 't4'].map(task) }, stages: { 'team-exec': { sleepMs: 1500 } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { storeOutageMs: 2_000 }));
    world.worker('machine-a', ['--max', '2']);
    world.worker('machine-b', ['--max', '2']);
    const run = world.team(['2:executor', 'add four greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.task_id.startsWith('t')), 'an exec attempt taken', 30_000);
    const restarted = env.cluster.restart(8_000);
    const ended = await run;
    await restarted;
    expect(String(ended.stderr)).not.toMatch(/\n\s+at /);
    expect(ended.exitCode).toBe(1);
    expect(String(ended.stderr)).toMatch(new RegExp(`cannot be written \\(store unreachable since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z .*\`team resume --run ${runId}\` continues it`));
    const resumed = await world.team(['resume', '--run', runId, '--retry-interrupted']);
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    const events = await world.events(runId);
    expect(events.at(-1)?.event).toBe('run_completed');
    const ledger = world.ledger().filter((l) => l.run === runId).map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(ledger).size).toBe(ledger.length);
  });
});
