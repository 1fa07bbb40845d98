// `team scale` on the PostgreSQL store: a live run whose attempts two team workers (as two machines)
// run, scaled up during exec and then down; the writer takes each request from the store's inbox.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../team-worker/worker-fixture.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

const env = clusterAndProject('teamline-scale-store-');
const worlds = closeScaleOuts();

const TASKS = Array.from({ length: 8 }, (_, i) => `t${i + 1}`);
// t1 and t2 work until the test opens the gate, after the drain: the added worker meets t3 and t4
// free, and t5..t8 (after t1) start once the run has one worker, on a machine of any speed.
const GATE = join(mkdtempSync(join(tmpdir(), 'teamline-scale-gate-')), 'open');
const EIGHT_TASKS = {
  name: 'scale-store',
  plan: { tasks: TASKS.map((id, i) => ({ id, title: `Part ${id}`, acceptance: [`${id} written`], ...(i >= 4 && { blockedBy: ['t1'] }) })) },
  stages: { 'team-exec': { sleepMs: 400 } },
  rules: [{ match: { stage: 'team-exec', task: 't1' }, do: { shell: `while [ ! -e ${GATE} ]; do sleep 0.05; done` } }, { match: { stage: 'team-exec', task: 't2' }, do: { shell: `while [ ! -e ${GATE} ]; do sleep 0.05; done` } }],
};
afterAll(() => rmSync(dirname(GATE), { recursive: true, force: true }));

describe('team scale on the PostgreSQL store', () => {
  it('scales a live run up and down while team workers run its attempts', { timeout: 60_000 }, async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, EIGHT_TASKS));
    world.worker('machine-a', ['--max', '3']);
    world.worker('machine-b', ['--max', '3']);
    const run = world.team(['2:executor', 'write eight parts', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'task_started' && e.task_id === 't1'), 'exec under way');

    await until(async () => (await world.events(runId)).filter((e) => e.event === 'attempt_taken' && ['t1', 't2'].includes(e.task_id)).length === 2, 't1 and t2 taken');
    const up = await world.team(['scale', '3']);
    expect(up.exitCode, String(up.stderr)).toBe(0);
    expect(String(up.stdout)).toContain(`asked run ${runId} to run with 3 workers`);
    const grown = await until(async () => (await world.events(runId)).find((e) => e.event === 'workers_changed'), 'the writer\'s change of workers');
    expect(grown).toMatchObject({ workers: 3, roster: ['worker-1', 'worker-2', 'worker-3'], added: ['worker-3'], drained: [] });
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.worker === 'worker-3'), 'the added worker\'s first attempt');

    const down = await world.team(['scale', '1']);
    expect(down.exitCode, String(down.stderr)).toBe(0);
    const drained = await until(async () => (await world.events(runId)).filter((e) => e.event === 'workers_changed')[1], 'the drain');
    expect(drained).toMatchObject({ workers: 1, roster: ['worker-1'] });
    writeFileSync(GATE, '');

    const result = await run;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const events = await world.events(runId);
    const [grownAt, drainedAt] = events.flatMap((e, i) => (e.event === 'workers_changed' ? [i] : []));
    const takenBy = (from: number, to = events.length) => events.slice(from, to).flatMap((e) => (e.event === 'attempt_taken' && TASKS.includes(e.task_id) ? [`${e.task_id}@${e.worker}`] : []));
    const startedAfter = (from: number) => new Set(events.slice(from).flatMap((e) => (e.event === 'task_started' && e.stage === 'team-exec' ? [e.task_id] : [])));
    // The added worker took work; after the drain, the attempts that start go to worker-1 alone.
    expect(takenBy(grownAt!, drainedAt).some((t) => t.endsWith('@worker-3'))).toBe(true);
    const late = takenBy(drainedAt!).filter((t) => startedAfter(drainedAt!).has(t.split('@')[0]!));
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((t) => !t.endsWith('@worker-1'))).toEqual([]);
    expect(new Set(events.flatMap((e) => (e.event === 'task_finished' && e.stage === 'team-exec' ? [e.task_id] : [])))).toEqual(new Set(TASKS));
    // Every attempt ran once; the run ended completed, and its status shows the roster.
    const ledger = world.ledger().filter((l) => l.run === runId).map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(ledger).size).toBe(ledger.length);
    const status = await world.team(['status']);
    expect(String(status.stdout)).toContain('workers 1: worker-1');
    const ended = await world.team(['scale', '2']);
    expect(ended.exitCode).toBe(2);
    expect(String(ended.stderr)).toContain(`run ${runId} has ended (completed): there are no workers to scale`);
  });
});
