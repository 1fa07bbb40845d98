import { describe, expect, it } from 'vitest';
import type { Driver } from './drive.js';
import { driverWith, fixOnce, toExec, toVerify, verifyOnce } from './routes.js';

const ralph = (maxFixLoops: number, maxIterations: number) => driverWith({ maxFixLoops, maxIterations }, { mode: 'ralph' });

// From plan.working: plans t1, runs it, verify passes; the driver ends in review.working.
function toReview(d: Driver): Driver {
  return verifyOnce(toVerify(toExec(d)), 'pass');
}

describe('pipeline machine: ralph', () => {
  it('reviews after a passing verify and completes when the architect approves at once', () => {
    const d = toReview(ralph(3, 10));
    expect(d.snapshot.value).toEqual({ review: 'working' });
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 'review-1', stage: 'ralph-review', attempt: 1 });
    d.review('approve');
    expect(d.spawned.at(-1)).toMatchObject({ src: 'writeHandoff', input: { stage: 'ralph-review', next: 'end (completed)' } });
    d.handoff();
    expect(d.snapshot.value).toBe('done');
    expect(d.records.at(-1)).toEqual({ event: 'run_completed', summary: 'completed: 1 of 1 tasks completed, 0 fix loop(s), iteration 1 of 10' });
    expect(d.recorded('iteration_started')).toEqual([]);
  });

  it('turns a rejection into a fix loop whose defects are the review reasons, then completes on approval', () => {
    const d = toReview(ralph(3, 10));
    d.review('reject', ['no tests for the 400 path', 'README not updated']).handoff();
    expect(d.snapshot.value).toEqual({ fix: 'handoff' });
    expect(d.recorded('fix_loop_started')).toEqual([{
      event: 'fix_loop_started', iteration: 1, loop: 1,
      defects: [{ id: 'review-1', description: 'no tests for the 400 path' }, { id: 'review-2', description: 'README not updated' }],
    }]);
    d.handoff();
    expect(d.running()).toEqual(['fix-1-review-1', 'fix-1-review-2']);
    verifyOnce(toVerify(d), 'pass');
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 'review-2', stage: 'ralph-review' });
    d.review('approve').handoff();
    expect(d.snapshot.value).toBe('done');
  });

  it('gives a rejection without reasons one reason of its own', () => {
    const d = toReview(ralph(3, 10));
    d.review('reject', []).handoff();
    expect(d.recorded('fix_loop_started')[0]!.defects).toEqual([{ id: 'review-1', description: 'rejected without reasons' }]);
  });

  for (const [maxFixLoops, maxIterations] of [[0, 1], [1, 3], [2, 2]] as const) {
    it(`fails after exactly ${maxIterations} iteration(s) when never approved (maxFixLoops ${maxFixLoops})`, () => {
      const d = ralph(maxFixLoops, maxIterations);
      for (let guard = 0; guard < 100 && d.snapshot.status !== 'done'; guard++) {
        if (d.snapshot.matches({ plan: 'working' })) toReview(d);
        else if (d.snapshot.matches({ review: 'working' })) d.review('reject', ['still wrong']).handoff();
        else if (d.snapshot.matches({ fix: 'handoff' })) verifyOnce(fixOnce(d), 'pass');
        else throw new Error(`unexpected state ${d.state}`);
      }
      expect(d.snapshot.value).toBe('failed');
      expect(d.recorded('iteration_started').map((r) => r.iteration)).toEqual(Array.from({ length: maxIterations - 1 }, (_, i) => i + 2));
      expect(d.recorded('fix_loop_started')).toHaveLength(maxFixLoops * maxIterations);
      expect(d.recorded('task_started').filter((r) => r.stage === 'ralph-review')).toHaveLength((maxFixLoops + 1) * maxIterations);
      expect(d.context.iteration).toBe(maxIterations);
      const started = d.recorded('task_started').map((r) => r.task_id);
      for (let k = 2; k <= maxIterations; k++) expect(started).toEqual(expect.arrayContaining([`i${k}.plan`, `i${k}.t1`, `i${k}.verify-1`, `i${k}.review-1`]));
      expect(d.records.at(-1)).toEqual({ event: 'run_failed', reason: `not approved after ${maxIterations} of ${maxIterations} iterations; last reasons: still wrong` });
    });
  }

  it('prefixes the ids of iteration 2 with i2.', () => {
    const d = ralph(1, 3);
    toReview(d).review('reject').handoff();
    verifyOnce(fixOnce(d), 'pass').review('reject').handoff();
    expect(d.snapshot.value).toEqual({ plan: 'working' });
    expect(d.records.slice(-3)).toEqual([
      { event: 'iteration_started', iteration: 2 },
      { event: 'stage_entered', stage: 'team-plan', iteration: 2, loop: 0 },
      expect.objectContaining({ event: 'task_started', task_id: 'i2.plan', attempt: 1, stage: 'team-plan' }),
    ]);
    toReview(d).review('reject').handoff().handoff();
    const started = d.recorded('task_started').filter((r) => r.task_id.startsWith('i2.')).map((r) => r.task_id);
    expect(started).toEqual(['i2.plan', 'i2.t1', 'i2.verify-1', 'i2.review-1', 'i2.fix-1-review-1']);
    expect(d.recorded('tasks_assigned').flatMap((r) => r.tasks).filter((r) => r.task_id.startsWith('i2.')).map((r) => r.task_id)).toEqual(['i2.t1', 'i2.fix-1-review-1']);
  });

  it('starts the next iteration from team-plan with every handoff so far when verify fails with the fix loops spent', () => {
    const d = ralph(1, 3);
    verifyOnce(toVerify(toExec(d)), 'fail');
    verifyOnce(fixOnce(d), 'fail');
    expect(d.snapshot.value).toEqual({ plan: 'working' });
    expect(d.context.iteration).toBe(2);
    expect(d.context.loop).toBe(0);
    expect(d.context.tasks).toEqual({});
    expect(d.context.iterations).toEqual([expect.objectContaining({ iteration: 1, loops: 1, outcome: 'verify failed with fix loops spent' })]);
    const paths = d.context.handoffs.map((h) => h.path);
    expect(d.context.handoffs.map((h) => h.stage)).toEqual(['team-plan', 'team-exec', 'team-verify', 'team-fix', 'team-exec', 'team-verify']);
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 'i2.plan', inputs: paths });
    expect(d.recorded('stage_entered').filter((r) => r.stage === 'ralph-review')).toEqual([]);
  });

  it('completes in iteration 2 when the architect approves there', () => {
    const d = ralph(0, 3);
    toReview(d).review('reject').handoff();
    toReview(d).review('approve').handoff();
    expect(d.snapshot.value).toBe('done');
    expect(d.records.at(-1)).toEqual({ event: 'run_completed', summary: 'completed: 1 of 1 tasks completed, 0 fix loop(s), iteration 2 of 3' });
  });

  it('cancels the pipeline inside a ralph iteration', () => {
    const d = ralph(0, 3);
    toReview(d).review('reject').handoff();
    toExec(d).send({ type: 'cancel.requested', force: false });
    expect(d.stopped).toContain('attempt:i2.t1:a1');
    d.finishTask('i2.t1', 'interrupted').handoff();
    expect(d.snapshot.value).toBe('cancelled');
    expect(d.records.at(-1)).toEqual({ event: 'run_cancelled', reason: 'cancelled by request' });
  });
});
