import { describe, expect, it } from 'vitest';
import { rootDefectId } from '../../machines/plan.js';
import { Driver } from './drive.js';
import { driverWith, independent, toExec, toVerify, verifyOnce } from './routes.js';

// A failure no retry can fix, as the runtime reports it.
const fatal = (d: Driver, id: string, evidence = 'claude: the API key was refused (Invalid API key); check ANTHROPIC_API_KEY') =>
  d.send({ type: 'task.finished', task_id: id, attempt: d.context.stageAttempt?.id === id ? d.context.stageAttempt.attempt : d.context.tasks[id]!.attempt, status: 'failed', evidence, artifacts: [], retryable: false });

describe('pipeline machine: failures that stop the run at once', () => {
  it('fails the run at the planner\'s first not-retryable failure, with no second attempt', () => {
    const d = fatal(new Driver(), 'plan');
    expect(d.recorded('task_started').map((r) => r.task_id)).toEqual(['plan']);
    expect(d.snapshot.value).toBe('failing');
    expect(d.context.reason).toBe('plan a1 failed and no retry can fix it: claude: the API key was refused (Invalid API key); check ANTHROPIC_API_KEY');
    d.handoff();
    expect(d.recorded('run_failed')).toEqual([{ event: 'run_failed', reason: d.context.reason }]);
  });

  it('stops the other running tasks and waits for them before it fails', () => {
    const d = toExec(driverWith({}, { workers: 2 }), independent(3));
    expect(d.running()).toEqual(['t1', 't2']);
    fatal(d, 't1');
    expect(d.snapshot.value).toBe('stopping');
    expect(d.stopped).toContain('attempt:t2:a1');
    expect(d.context.tasks.t1).toMatchObject({ status: 'failed', attempt: 1 });
    expect(d.recorded('task_started').map((r) => r.task_id)).not.toContain('t3');
    d.finishTask('t2', 'interrupted');
    expect(d.snapshot.value).toBe('failing');
    d.handoff();
    expect(d.recorded('run_failed')[0]!.reason).toContain('t1 a1 failed and no retry can fix it: claude: the API key was refused');
  });

  it('retries an ordinary failure as before', () => {
    const d = toExec(new Driver());
    d.finishTask('t1', 'failed');
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 2 });
  });

  it('fails the run without a verifier as soon as every worker is spent, naming them and the undone tasks', () => {
    const d = toExec(driverWith({ maxTaskAttempts: 1 }, { workers: 2 }), independent(5));
    d.finishTask('t1', 'failed').finishTask('t2', 'failed');
    d.finishTask('t3', 'failed').finishTask('t4', 'failed');
    expect(d.context.workerFailures).toEqual({ 'worker-1': 2, 'worker-2': 2 });
    expect(d.snapshot.value).toBe('failing');
    expect(d.context.reason).toBe('no worker left: every worker failed 2 tasks (worker-1: 2, worker-2: 2); not done: t1, t2, t3, t4, t5');
    d.handoff();
    expect(d.recorded('stage_entered').map((r) => r.stage)).not.toContain('team-verify');
    expect(d.recorded('run_failed')).toHaveLength(1);
  });
});

describe('fix task ids', () => {
  it('never nest: a fix of a failed fix task gets a flat id of its own', () => {
    const d = toVerify(toExec(driverWith({ maxFixLoops: 3 }, { workers: 3 })));
    verifyOnce(d, 'fail', [{ id: 'd1', description: 'broken' }]).handoff();
    expect(d.running()).toEqual(['fix-1-d1']);
    d.finishTask('fix-1-d1', 'failed').finishTask('fix-1-d1', 'failed').handoff();
    // The failed fix task is a defect of its own (`task-fix-1-d1`) whatever the verifier says.
    verifyOnce(d, 'pass').handoff();
    expect(d.running()).toEqual(['fix-2-task-d1']);
    d.finishTask('fix-2-task-d1', 'failed').finishTask('fix-2-task-d1', 'failed').handoff();
    verifyOnce(d, 'fail', [{ id: 'task-d1', description: 'same root' }]).handoff();
    expect(Object.keys(d.context.tasks).filter((id) => id.startsWith('fix-3-'))).toEqual(['fix-3-task-d1', 'fix-3-task-d1-2']);
  });

  it('keeps the root of a defect id behind any fix prefixes', () => {
    expect(rootDefectId('fix-3-fix-2-fix-1-d1')).toBe('d1');
    expect(rootDefectId('task-fix-2-task-i2.fix-1-task-t1')).toBe('task-t1');
    expect(rootDefectId('gate-1')).toBe('gate-1');
  });
});
