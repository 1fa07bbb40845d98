import { describe, expect, it } from 'vitest';
import { Driver } from './drive.js';
import { T1, toExec, toVerify } from './routes.js';

describe('pipeline machine: team-plan and team-prd', () => {
  it('starts in team-plan with the planner as attempt 1', () => {
    const d = new Driver();
    expect(d.snapshot.value).toEqual({ plan: 'working' });
    expect(d.records.map((r) => r.event)).toEqual(['stage_entered', 'task_started']);
    expect(d.recorded('task_started')[0]).toMatchObject({ task_id: 'plan', stage: 'team-plan', attempt: 1 });
  });

  it('assigns every planned task to a worker round-robin before any dispatch', () => {
    const d = new Driver();
    d.plan([T1, { ...T1, id: 't2' }, { ...T1, id: 't3' }, { ...T1, id: 't4' }]);
    // One record for the plan's tasks, not one per task.
    expect(d.recorded('tasks_assigned')).toHaveLength(1);
    expect(d.recorded('task_assigned')).toEqual([]);
    expect(d.recorded('tasks_assigned')[0]!.tasks.map((r) => [r.task_id, r.worker])).toEqual([
      ['t1', 'worker-1'], ['t2', 'worker-2'], ['t3', 'worker-3'], ['t4', 'worker-1'],
    ]);
    expect(d.recorded('task_started').map((r) => r.task_id)).toEqual(['plan']);
  });

  it('takes team-prd when the plan says needsPrd', () => {
    const d = new Driver();
    d.plan([T1], true).handoff();
    expect(d.snapshot.value).toEqual({ prd: 'working' });
    expect(d.records.at(-2)).toMatchObject({ event: 'stage_entered', stage: 'team-prd' });
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 'prd', stage: 'team-prd', attempt: 1 });
    expect(d.recorded('stage_skipped')).toEqual([]);
  });

  it('takes team-prd when a task has no acceptance criteria, and merges the criteria the analyst gives', () => {
    const d = new Driver();
    d.plan([T1, { id: 't2', title: 'T2', description: 'two' }]).handoff();
    expect(d.snapshot.value).toEqual({ prd: 'working' });
    const current = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'prd.accepted', task_id: current.id, attempt: current.attempt, acceptance: { t2: ['returns 400 on a bad body'] } });
    expect(d.snapshot.value).toEqual({ prd: 'handoff' });
    expect(d.context.tasks.t2!.def.acceptance).toEqual(['returns 400 on a bad body']);
    d.handoff();
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.running()).toEqual(['t1', 't2']);
  });

  it('counts an empty acceptance list as missing criteria', () => {
    const d = new Driver();
    d.plan([{ ...T1, acceptance: [] }]).handoff();
    expect(d.snapshot.value).toEqual({ prd: 'working' });
  });

  it('records team-prd as skipped when no PRD is needed and every task has criteria', () => {
    const d = new Driver();
    toExec(d);
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.recorded('stage_skipped')).toEqual([
      { event: 'stage_skipped', stage: 'team-prd', iteration: 1, reason: 'the plan does not ask for a PRD and every task has acceptance criteria' },
    ]);
    expect(d.recorded('stage_entered').map((r) => r.stage)).toEqual(['team-plan', 'team-exec']);
  });
});

describe('pipeline machine: single-agent stages', () => {
  it('retries a failed planner as attempt 2 without ending the run', () => {
    const d = new Driver();
    d.finishStage('failed');
    expect(d.snapshot.value).toEqual({ plan: 'working' });
    expect(d.context.stageAttempt).toMatchObject({ id: 'plan', attempt: 2, failures: 1, status: 'running' });
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 'plan', attempt: 2 });
  });

  it('ends the run failed with the evidence when the planner fails twice', () => {
    const d = new Driver();
    d.send({ type: 'task.finished', task_id: 'plan', attempt: 1, status: 'failed', evidence: 'exited 1', artifacts: [] });
    d.send({ type: 'task.finished', task_id: 'plan', attempt: 2, status: 'failed', evidence: 'invalid plan: the plan has no task', artifacts: [] });
    expect(d.snapshot.value).toBe('failing');
    expect(d.spawned.at(-1)).toMatchObject({ src: 'writeHandoff', input: { stage: 'team-plan', next: 'end (failed)' } });
    d.handoff();
    expect(d.snapshot.value).toBe('failed');
    expect(d.snapshot.status).toBe('done');
    expect(d.records.at(-1)).toEqual({ event: 'run_failed', reason: 'team-plan failed after 2 failed attempt(s): invalid plan: the plan has no task' });
  });

  it('ends the run failed with the evidence when the verifier fails twice', () => {
    const d = new Driver();
    toVerify(toExec(d));
    expect(d.snapshot.value).toEqual({ verify: 'verifier' });
    for (const attempt of [1, 2]) {
      d.send({ type: 'task.finished', task_id: 'verify-1', attempt, status: 'failed', evidence: `verifier crash ${attempt}`, artifacts: [] });
    }
    expect(d.recorded('task_started').filter((r) => r.task_id === 'verify-1').map((r) => r.attempt)).toEqual([1, 2]);
    d.handoff();
    expect(d.snapshot.value).toBe('failed');
    expect(d.records.at(-1)).toEqual({ event: 'run_failed', reason: 'team-verify failed after 2 failed attempt(s): verifier crash 2' });
  });

  it('ignores a finish event of an earlier stage attempt', () => {
    const d = new Driver();
    d.finishStage('failed');
    const before = d.records.length;
    const context = d.context;
    d.send({ type: 'task.finished', task_id: 'plan', attempt: 1, status: 'completed', evidence: 'late', artifacts: [] });
    d.send({ type: 'task.finished', task_id: 'plan', attempt: 3, status: 'failed', evidence: 'from the future', artifacts: [] });
    expect(d.snapshot.value).toEqual({ plan: 'working' });
    expect(d.context).toEqual(context);
    expect(d.since(before)).toEqual([]);
  });

  it('ignores a finish event of a task with the wrong attempt number', () => {
    const d = toExec(new Driver());
    d.finishTask('t1', 'failed');
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 2 });
    const before = d.records.length;
    const context = d.context;
    for (const attempt of [1, 3]) {
      d.send({ type: 'task.finished', task_id: 't1', attempt, status: 'completed', evidence: 'stale', artifacts: [] });
    }
    d.send({ type: 'task.finished', task_id: 'nope', attempt: 1, status: 'completed', evidence: 'unknown task', artifacts: [] });
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context).toEqual(context);
    expect(d.since(before)).toEqual([]);
  });
});
