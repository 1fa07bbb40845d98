// The soak of the store path (slow: about two minutes): 8 team workers in folders of their own, a run
// of 200 tasks on the PostgreSQL store, workers killed with kill -9 at random and started again, and
// one restart of PostgreSQL in the middle. The run completes; no attempt ran twice; nothing that was
// recorded is lost (every attempt started has its one end, and the sim's ledger has each task's work
// done once, by an attempt that completed).
import { describe, expect, it } from 'vitest';
import { until } from '../team-worker/worker-fixture.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut, type Machine } from './scale-out-fixture.js';

// Durable: what the server acknowledged survives its crash, as in any real deployment.
const env = clusterAndProject('teamline-soak-', { durable: true });
const worlds = closeScaleOuts();
const TASKS = 200;
const WORKERS = 8;
const KILLS = 3;

// A seeded generator, so that a failure can be run again as it was (the seed is in the test's name).
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
const SEED = Number(process.env.TEAMLINE_SOAK_SEED ?? Date.now() % 100_000);

describe('the store path under a soak', () => {
  it(`completes 200 tasks on 8 workers through kill -9 of workers and a PostgreSQL restart (seed ${SEED})`, { timeout: 480_000 }, async () => {
    const next = random(SEED);
    const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i + 1}`, title: `task ${i + 1}`, acceptance: ['done'] }));
    const scenario = { name: 'soak', plan: { tasks }, stages: { 'team-exec': { sleepMs: 200 } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { maxTasks: TASKS, maxTaskAttempts: 4 }));
    const names = Array.from({ length: WORKERS }, (_, i) => `machine-${i + 1}`);
    const live = new Map<string, Machine>(names.map((name) => [name, world.worker(name, ['--max', '2', '--lease-ttl', '3'])]));
    const run = world.team([`${WORKERS}:executor`, 'soak the store', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store', 60_000);
    const finished = async () => (await world.events(runId)).filter((e) => e.event === 'task_finished' && e.stage === 'team-exec').length;
    // The kills and the restart, each once a share of the tasks has finished.
    const marks = [...Array.from({ length: KILLS }, (_, k) => Math.round(((k + 1) * TASKS) / (KILLS + 2))), Math.round(TASKS / 2)].sort((a, b) => a - b);
    let restarted = false;
    // A run that ends before the marks are reached fails the test at once, with what it said and
    // the state of the log then (not after the wait's bound, with nothing to go on).
    let runEnded: { exitCode?: number; stderr?: unknown } | undefined;
    void run.then((r) => (runEnded = r), (r: { exitCode?: number; stderr?: unknown }) => (runEnded = r));
    const progress = async () => {
      const events = await world.events(runId);
      const running = events.filter((e) => e.event === 'task_started').length - events.filter((e) => e.event === 'task_finished').length;
      return `${events.length} events, the last ${events.at(-1)?.event}; ${running} attempts started and not ended`;
    };
    for (const mark of marks) {
      await until(async () => {
        if (runEnded) throw new Error(`the run ended (exit ${runEnded.exitCode}) before ${mark} tasks finished: ${await progress()}\n${String(runEnded.stderr).slice(-3000)}`);
        return (await finished()) >= mark;
      }, `${mark} tasks finished`, 240_000).catch(async (error: Error) => {
        throw new Error(`${error.message} (${await progress()})`);
      });
      if (!restarted && mark === Math.round(TASKS / 2)) {
        restarted = true;
        await env.cluster.restart(1_500);
        continue;
      }
      const name = names[Math.floor(next() * names.length)]!;
      live.get(name)!.child.kill('SIGKILL');
      await live.get(name)!.child;
      live.set(name, world.worker(`${name}-again`, ['--max', '2', '--lease-ttl', '3']));
    }
    const ended = await run;
    expect(String(ended.stderr)).not.toMatch(/\n\s+at /);
    expect(ended.exitCode, String(ended.stderr).slice(-2000)).toBe(0);
    const events = await world.events(runId);
    expect(events.at(-1)?.event).toBe('run_completed');
    const key = (e: { task_id: string; attempt: number }) => `${e.task_id}#${e.attempt}`;
    const started = events.flatMap((e) => (e.event === 'task_started' ? [key(e)] : []));
    const ends = events.flatMap((e) => (e.event === 'task_finished' ? [key(e)] : []));
    expect(new Set(started).size).toBe(started.length);
    expect(new Set(ends).size).toBe(ends.length);
    expect([...ends].sort()).toEqual([...started].sort());
    const completed = new Set(events.flatMap((e) => (e.event === 'task_finished' && e.status === 'completed' ? [key(e)] : [])));
    const work = world.ledger().filter((l) => l.run === runId && /^t\d+$/.test(l.task));
    const done = work.map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(done).size).toBe(done.length);
    expect(new Set(work.map((l) => l.task)).size).toBe(TASKS);
    for (const task of tasks) expect(done.filter((d) => d.startsWith(`${task.id}#`) && completed.has(d))).toHaveLength(1);
  });
});
