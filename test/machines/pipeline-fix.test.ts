import { describe, expect, it } from 'vitest';
import { driverWith, fixOnce, toExec, toVerify, verifyOnce } from './routes.js';
import type { Driver } from './drive.js';

const defect = (n: number) => [{ id: `d${n}`, description: `broken ${n}` }];

// A team run whose verify fails `failures` times (defect d<k> the k-th time), then passes.
function runWithFailures(maxFixLoops: number, failures: number): Driver {
  const d = toVerify(toExec(driverWith({ maxFixLoops })));
  for (let k = 1; k <= failures; k++) {
    verifyOnce(d, 'fail', defect(k));
    if (d.snapshot.status === 'done') return d;
    fixOnce(d);
  }
  return verifyOnce(d, 'pass');
}

describe('pipeline machine: the fix loop', () => {
  for (const loops of [0, 1, 2, 3]) {
    it(`completes after ${loops} fix loop(s) when verify then passes (maxFixLoops 3)`, () => {
      const d = runWithFailures(3, loops);
      expect(d.snapshot.value).toBe('done');
      expect(d.recorded('fix_loop_started').map((r) => r.loop)).toEqual(Array.from({ length: loops }, (_, i) => i + 1));
      expect(d.records.at(-1)).toEqual({ event: 'run_completed', summary: `completed: ${1 + loops} of ${1 + loops} tasks completed, ${loops} fix loop(s)` });
    });
  }

  for (const max of [0, 1, 3]) {
    it(`fails after exactly ${max} fix loop(s) when verify never passes (maxFixLoops ${max})`, () => {
      const d = runWithFailures(max, max + 5);
      expect(d.snapshot.value).toBe('failed');
      expect(d.recorded('fix_loop_started')).toHaveLength(max);
      expect(d.recorded('stage_entered').filter((r) => r.stage === 'team-verify')).toHaveLength(max + 1);
      expect(d.context.loop).toBe(max);
      expect(d.records.at(-1)).toEqual({
        event: 'run_failed',
        reason: `verify failed with ${max} of ${max} fix loops spent; last defects: d${max + 1}: broken ${max + 1}`,
      });
    });
  }

  it('writes the verify handoff toward the end, not toward a fix, when the fix loops are spent', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 1 })));
    fixOnce(verifyOnce(d, 'fail', defect(1)));
    d.verify('fail', defect(2));
    expect(d.snapshot.value).toEqual({ verify: 'handoff' });
    expect(d.spawned.at(-1)).toMatchObject({ src: 'writeHandoff', input: { stage: 'team-verify', next: 'end (failed)' } });
  });

  it('makes one fix task per defect and runs them as team-fix attempts of the next exec pass', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 3 })));
    verifyOnce(d, 'fail', [{ id: 'd1', description: 'a' }, { id: 'd 2', description: 'b', task: 't1' }]);
    expect(d.snapshot.value).toEqual({ fix: 'handoff' });
    expect(d.recorded('fix_loop_started')).toEqual([{ event: 'fix_loop_started', iteration: 1, loop: 1, defects: [{ id: 'd1', description: 'a' }, { id: 'd 2', description: 'b', task: 't1' }] }]);
    d.handoff();
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.running()).toEqual(['fix-1-d1', 'fix-1-d-2']);
    expect(d.recorded('task_started').slice(-2).map((r) => [r.task_id, r.stage])).toEqual([['fix-1-d1', 'team-fix'], ['fix-1-d-2', 'team-fix']]);
    expect(d.context.tasks.t1!.status).toBe('completed');
  });

  it('turns failing gates into defects even when the verifier passes', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 1 }, { gates: ['npm test'] })));
    expect(d.snapshot.value).toEqual({ verify: 'gates' });
    expect(d.spawned.at(-1)).toMatchObject({ src: 'runGates', input: { commands: ['npm test'], iteration: 1, pass: 1 } });
    d.send({ type: 'gates.result', gates: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 5, output: 'ok 1\nnot ok 2' }] });
    expect(d.snapshot.value).toEqual({ verify: 'verifier' });
    d.verify('pass');
    expect(d.context.verdict).toBe('fail');
    expect(d.context.defects).toEqual([{ id: 'gate-1', description: '`npm test` exited 1: ok 1 | not ok 2' }]);
    d.handoff();
    expect(d.snapshot.value).toEqual({ fix: 'handoff' });
  });

  it('gives a fail verdict without defects one defect of its own', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 1 })));
    verifyOnce(d, 'fail', []);
    expect(d.recorded('fix_loop_started')[0]!.defects).toEqual([{ id: 'verdict', description: 'the verifier reported fail without listing defects' }]);
  });

  it('fails verify when a task of the pass failed, even on a pass verdict', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 1 })), { t1: 2 });
    expect(d.context.tasks.t1!.status).toBe('failed');
    d.verify('pass');
    expect(d.context.verdict).toBe('fail');
    expect(d.context.defects).toEqual([{ id: 'task-t1', description: 'task t1 (T1) failed: t1 failed', task: 't1' }]);
  });

  it('never starts a fix loop past maxFixLoops, whatever the defects', () => {
    for (const max of [0, 1, 2]) {
      const d = runWithFailures(max, 10);
      expect(Math.max(0, ...d.recorded('fix_loop_started').map((r) => r.loop))).toBe(max);
      expect(Object.keys(d.context.tasks).filter((id) => id.startsWith(`fix-${max + 1}-`))).toEqual([]);
    }
  });
});
