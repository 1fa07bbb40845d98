import { describe, expect, it } from 'vitest';
import type { AttemptInput } from '../../machines/types.js';
import { DIAMOND, Driver, makeInput } from './drive.js';
import { driverWith, independent, toExec } from './routes.js';

// The worker each exec attempt was started on, in start order.
const startsOn = (d: Driver, from = 0) =>
  d.spawned.slice(from).filter((s) => s.src === 'runAttempt' && (s.input as AttemptInput).stage === 'team-exec').map((s) => {
    const input = s.input as AttemptInput;
    return `${input.taskId}#a${input.attempt}@${input.worker}`;
  });

describe('pipeline machine: task attempts', () => {
  it('retries a failed task as attempt 2 with a task_started record, and the run goes on', () => {
    const d = toExec(new Driver());
    d.finishTask('t1', 'failed');
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 2, failures: 1 });
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 't1', stage: 'team-exec', attempt: 2 });
    d.finishTask('t1', 'completed');
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
    expect(d.recorded('run_failed')).toEqual([]);
  });

  it('does not retry a task whose branch could not be merged, and makes it a defect at verify', () => {
    const d = toExec(new Driver());
    d.send({ type: 'merge.failed', task_id: 't1', attempt: 1, reason: 'conflict' });
    d.finishTask('t1', 'failed');
    expect(d.context.tasks.t1).toMatchObject({ status: 'failed', attempt: 1, failures: 1, mergeFailed: 'conflict' });
    expect(d.recorded('task_started').filter((r) => r.task_id === 't1').map((r) => r.attempt)).toEqual([1]);
    d.handoff().finishStage('completed', { type: 'verify.result', task_id: 'verify-1', attempt: 1, verdict: 'pass', defects: [] });
    expect(d.context.defects.map((x) => [x.id, x.task])).toEqual([['task-t1', 't1']]);
  });

  it('fails a task after maxTaskAttempts failed attempts and still reaches verify', () => {
    const d = toExec(driverWith({ maxTaskAttempts: 3 }));
    for (let i = 0; i < 3; i++) d.finishTask('t1', 'failed');
    expect(d.context.tasks.t1).toMatchObject({ status: 'failed', attempt: 3, failures: 3 });
    expect(d.recorded('task_started').filter((r) => r.task_id === 't1').map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
    d.handoff();
    expect(d.snapshot.value).toEqual({ verify: 'verifier' });
  });

  it('fails the tasks blocked by a failed task with that reason, transitively', () => {
    const d = toExec(new Driver(), [
      { id: 'a', title: 'A', description: 'a', acceptance: ['ok'] },
      { id: 'b', title: 'B', description: 'b', blockedBy: ['a'], acceptance: ['ok'] },
      { id: 'c', title: 'C', description: 'c', blockedBy: ['b'], acceptance: ['ok'] },
      { id: 'x', title: 'X', description: 'x', acceptance: ['ok'] },
    ]);
    d.finishTask('a', 'failed').finishTask('a', 'failed');
    expect(d.recorded('task_blocked')).toEqual([
      { event: 'task_blocked', task_id: 'b', reason: 'blocked by failed task a' },
      { event: 'task_blocked', task_id: 'c', reason: 'blocked by failed task b' },
    ]);
    expect(d.context.tasks.b).toMatchObject({ status: 'failed', attempt: 0, evidence: 'blocked by failed task a' });
    expect(d.recorded('task_started').map((r) => r.task_id)).not.toContain('b');
    d.finishTask('x').handoff();
    expect(d.snapshot.value).toEqual({ verify: 'verifier' });
  });

  it('gives a worker on which 2 tasks failed no more work and reassigns its pending tasks', () => {
    const d = toExec(driverWith({ maxTaskAttempts: 2 }, { workers: 2 }), independent(5));
    expect(startsOn(d)).toEqual(['t1#a1@worker-1', 't2#a1@worker-2']);
    d.finishTask('t1', 'failed').finishTask('t1').finishTask('t3', 'failed');
    expect(d.context.workerFailures).toEqual({ 'worker-1': 2 });
    const mark = d.spawned.length;
    const records = d.records.length;
    d.finishTask('t2').finishTask('t3').finishTask('t4').finishTask('t5');
    expect(startsOn(d, mark)).toEqual(['t3#a2@worker-2', 't4#a1@worker-2', 't5#a1@worker-2']);
    expect(d.since(records).filter((r) => r.event === 'task_assigned')).toEqual([
      { event: 'task_assigned', task_id: 't3', worker: 'worker-2' },
      { event: 'task_assigned', task_id: 't5', worker: 'worker-2' },
    ]);
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
  });

  it('under own-first, gives an idle worker its own next ready task before an earlier one of a busy worker, and another\'s only when it has none', () => {
    const run = (schedule?: 'own-first') => {
      // Seven tasks round three workers: worker-3 is planned t3 and t6.
      const d = toExec(driverWith({}, { workers: 3, ...(schedule && { schedule }) }), independent(7));
      const records = d.records.length;
      d.finishTask('t3').finishTask(schedule ? 't6' : 't4');
      return { starts: startsOn(d), moved: d.since(records).filter((r) => r.event === 'task_assigned') };
    };
    expect(run('own-first')).toEqual({
      starts: ['t1#a1@worker-1', 't2#a1@worker-2', 't3#a1@worker-3', 't6#a1@worker-3', 't4#a1@worker-3'],
      moved: [{ event: 'task_assigned', task_id: 't4', worker: 'worker-3' }],
    });
    // Plan order (runs of earlier versions, whose run_started names no schedule): the next task, whoever's.
    expect(run()).toEqual({
      starts: ['t1#a1@worker-1', 't2#a1@worker-2', 't3#a1@worker-3', 't4#a1@worker-3', 't5#a1@worker-3'],
      moved: [
        { event: 'task_assigned', task_id: 't4', worker: 'worker-3' },
        { event: 'task_assigned', task_id: 't5', worker: 'worker-3' },
      ],
    });
  });

  it('under own-first, looks for a worker\'s own task only within its window past the scan cursor, and past it takes the next ready task', () => {
    // Two workers; t3..t10 wait for t1; t11 (worker-1's) and t12 (worker-2's) are ready at once.
    const tasks = independent(12).map((t, i) => (i >= 2 && i < 10 ? { ...t, blockedBy: ['t1'] } : t));
    const d = toExec(driverWith({}, { workers: 2, schedule: 'own-first' }), tasks);
    const records = d.records.length;
    d.finishTask('t2');
    // worker-2's own ready task t12 lies past the window (4 tasks per worker from the cursor at t3): it takes t11.
    expect(startsOn(d).at(-1)).toBe('t11#a1@worker-2');
    expect(d.since(records).filter((r) => r.event === 'task_assigned')).toEqual([{ event: 'task_assigned', task_id: 't11', worker: 'worker-2' }]);
  });

  it('under own-first, still retries a failed task on another idle worker than the one it failed on', () => {
    const d = toExec(driverWith({}, { workers: 2, schedule: 'own-first' }), independent(2));
    d.finishTask('t2').finishTask('t1', 'failed');
    expect(startsOn(d).at(-1)).toBe('t1#a2@worker-2');
    expect(d.records.at(-2)).toEqual({ event: 'task_assigned', task_id: 't1', worker: 'worker-2' });
  });

  it('retries a failed task on another idle worker than the one it failed on', () => {
    const d = toExec(driverWith({}, { workers: 2 }), independent(2));
    d.finishTask('t2').finishTask('t1', 'failed');
    expect(startsOn(d).at(-1)).toBe('t1#a2@worker-2');
    expect(d.records.at(-2)).toEqual({ event: 'task_assigned', task_id: 't1', worker: 'worker-2' });
  });

  it('fails the pending tasks when no worker is left, and the run with them, without a verifier', () => {
    const d = toExec(driverWith({ maxTaskAttempts: 1 }, { workers: 1 }), independent(3));
    d.finishTask('t1', 'failed').finishTask('t2', 'failed');
    expect(d.recorded('task_blocked')).toEqual([{ event: 'task_blocked', task_id: 't3', reason: 'no worker left: every worker failed 2 tasks' }]);
    expect(d.snapshot.value).toBe('failing');
  });
});

describe('pipeline machine: concurrency', () => {
  for (const workers of [1, 2, 3]) {
    it(`runs at most ${workers} attempt(s) at once and reaches ${workers} on the diamond graph`, () => {
      const d = toExec(new Driver(makeInput({ workers })), DIAMOND);
      expect(d.running()).toEqual(['a']);
      d.finishTask('a');
      expect(d.running()).toHaveLength(Math.min(workers, 3));
      d.runExec({ c: 1 });
      expect(d.maxRunning).toBe(workers);
      expect(d.snapshot.value).toEqual({ exec: 'handoff' });
      expect(Object.values(d.context.tasks).every((t) => t.status === 'completed')).toBe(true);
    });

    it(`keeps ${workers} worker(s) busy on ${workers + 2} independent tasks and no more`, () => {
      const d = toExec(new Driver(makeInput({ workers })), independent(workers + 2));
      expect(d.running()).toHaveLength(workers);
      expect(new Set(d.running().map((id) => d.context.tasks[id]!.worker)).size).toBe(workers);
      d.runExec();
      expect(d.maxRunning).toBe(workers);
      expect(d.recorded('task_started').filter((r) => r.stage === 'team-exec')).toHaveLength(workers + 2);
    });
  }

  it('starts a task only when everything it is blocked by has completed', () => {
    const d = toExec(new Driver(makeInput({ workers: 3 })), DIAMOND);
    d.finishTask('a').finishTask('b').finishTask('c');
    expect(d.running()).toEqual(['d']);
    d.finishTask('d');
    expect(d.running()).toEqual(['e']);
  });
});
