// Spend on the PostgreSQL store, counted while team workers run the attempts: an attempt that reports
// its spend early and then works on (the sim's usageEarly, then a sleep far past the test's own
// timeout, so that only a stop ends it in time) spends the run's budget at once, and the run stops
// for it then, not at that attempt's end; its own cap (agents.<name>.maxBudgetUsd) stops it on its
// worker likewise. No wall-clock margin: an attempt that was not stopped makes the test time out.
import { describe, expect, it } from 'vitest';
import { until } from '../team-worker/worker-fixture.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

const env = clusterAndProject('teamline-scale-out-budget-');
const worlds = closeScaleOuts();

const task = (id: string) => ({ id, title: `Task ${id}`, acceptance: [`${id} written`] });
// Longer than each test may take: the spending attempt ends before it only when it is stopped.
const WORKS_ON_MS = 600_000;
// How long a look waits: within the test's timeout, however loaded the machine.
const LOOK_MS = 80_000;

// t1's first attempt says at once that it spent $0.50, then works on; every other attempt is quick and free.
const SPENDS_EARLY = {
  name: 'spends-early',
  plan: { tasks: [task('t1'), task('t2')] },
  rules: [{ match: { stage: 'team-exec', task: 't1', attempt: 1 }, do: { usage: { costUsd: 0.5 }, usageEarly: true, sleepMs: WORKS_ON_MS } }],
};

describe('live spend on the PostgreSQL store', () => {
  it('stops the run for its budget while an attempt that spent it still runs on a team worker, and a raised budget completes it', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, SPENDS_EARLY, { shutdownTimeoutMs: 500 }));
    world.worker('machine-a', ['--max', '2']);
    world.worker('machine-b', ['--max', '2']);
    const run = world.team(['2:executor', 'add two greetings', '--agent', 'sim', '--budget-usd', '0.3']);
    const runId = await until(() => world.runId(), 'the run in the store');
    const spent = await until(async () => (await world.events(runId)).find((e) => e.event === 'attempt_spend'), 'the spend of t1 a1 in the log');
    expect(spent).toMatchObject({ task_id: 't1', attempt: 1, cost_usd: 0.5, report: expect.any(Number) });
    const stopped = await run;
    expect(stopped.exitCode, String(stopped.stderr)).toBe(4);
    expect(String(stopped.stderr)).toContain('budget spent: $0.50 of $0.30');
    const events = await world.events(runId);
    expect(events.filter((e) => e.event === 'budget_exceeded')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'attempt_spend')).toHaveLength(1);
    const t1 = events.find((e) => e.event === 'task_finished' && e.task_id === 't1');
    expect(t1).toMatchObject({ attempt: 1, status: 'interrupted', evidence: expect.stringContaining('budget spent: $0.50 of $0.30') });
    const completedBefore = events.flatMap((e) => (e.event === 'task_finished' && e.status === 'completed' ? [`${e.task_id}#${e.attempt}`] : []));
    expect(completedBefore).toContain('plan#1');
    // A raised budget goes on: the stopped attempt is tried again, nothing completed runs twice.
    const resumed = await world.team(['resume', '--budget-usd', '5']);
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    const after = await world.events(runId);
    expect(after.at(-1)?.event).toBe('run_completed');
    const completed = after.flatMap((e) => (e.event === 'task_finished' && e.status === 'completed' ? [`${e.task_id}#${e.attempt}`] : []));
    expect(completed).toEqual(expect.arrayContaining([...completedBefore, 't1#2']));
    const ledger = world.ledger().filter((l) => l.run === runId).map((l) => `${l.task}#${l.attempt}#${l.stage}`);
    expect(new Set(ledger).size).toBe(ledger.length);
    expect(ledger.filter((l) => l.startsWith('t1#'))).toEqual(['t1#2#team-exec']);
  }, 90_000);

  it('stops an attempt over its agent\'s own cap on its worker, saying why, long before its end', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, SPENDS_EARLY, {}, { maxBudgetUsd: 0.2 }));
    world.worker('machine-a', ['--max', '2']);
    const run = world.team(['2:executor', 'add two greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    const failed = await until(async () => (await world.events(runId)).find((e) => e.event === 'task_finished' && e.task_id === 't1' && e.attempt === 1), 't1 a1 ended', LOOK_MS);
    expect(failed).toMatchObject({ status: 'failed', evidence: expect.stringContaining('attempt cap: spent $0.5000, over agents.sim.maxBudgetUsd ($0.2); stopped') });
    // Its retry does not spend: the run completes.
    expect((await run).exitCode).toBe(0);
  }, 90_000);
});
