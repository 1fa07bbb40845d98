import { describe, expect, it } from 'vitest';
import { Driver, makeInput } from './drive.js';
import { independent, toExec } from './routes.js';

// An exec pass of two tasks whose t1 attempt 1 was interrupted, with t2 still running.
function interrupted(): Driver {
  const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
  return d.finishTask('t1', 'interrupted');
}

describe('pipeline machine: interrupted attempts', () => {
  it('waits for the running tasks before it stops for a decision', () => {
    const d = interrupted();
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'interrupted', attempt: 1, failures: 0 });
    expect(d.recorded('run_stopped')).toEqual([]);
  });

  it('stops with a run_stopped record naming the interrupted attempts when retryInterrupted is off', () => {
    const d = interrupted().finishTask('t2');
    expect(d.snapshot.value).toBe('stopped');
    expect(d.snapshot.status).toBe('active');
    const reason = 'interrupted attempts need a decision: t1#a1; `team resume --retry-interrupted` retries them';
    expect(d.records.at(-1)).toEqual({ event: 'run_stopped', reason, attempts: ['t1#a1'] });
    expect(d.context.reason).toBe(reason);
  });

  it('BUG: stops for a decision when the interrupted task blocks a pending one, instead of waiting forever', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), [
      { id: 'a', title: 'A', description: 'a', acceptance: ['ok'] },
      { id: 'b', title: 'B', description: 'b', blockedBy: ['a'], acceptance: ['ok'] },
    ]);
    d.finishTask('a', 'interrupted');
    expect(d.running()).toEqual([]);
    expect(d.snapshot.value).toBe('stopped');
    expect(d.records.at(-1)).toMatchObject({ event: 'run_stopped', attempts: ['a#a1'] });
  });

  it('goes back to exec and starts a new attempt on run.resumed with retry_interrupted', () => {
    const d = interrupted().finishTask('t2');
    const mark = d.records.length;
    d.send({ type: 'run.resumed', retry_interrupted: true });
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.since(mark)).toEqual([
      { event: 'stage_entered', stage: 'team-exec', iteration: 1, loop: 0 },
      expect.objectContaining({ event: 'task_started', task_id: 't1', attempt: 2 }),
    ]);
    d.finishTask('t1');
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
  });

  it('stays stopped on run.resumed without retry_interrupted', () => {
    const d = interrupted().finishTask('t2');
    const mark = d.records.length;
    d.send({ type: 'run.resumed', retry_interrupted: false });
    expect(d.snapshot.value).toBe('stopped');
    expect(d.since(mark)).toEqual([]);
  });

  it('goes back to exec and starts the next attempt on task.retry', () => {
    const d = interrupted().finishTask('t2');
    d.send({ type: 'task.retry', task_id: 't1', attempt: 2, reason: 'try again' });
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.records.at(-1)).toMatchObject({ event: 'task_started', task_id: 't1', attempt: 2 });
    expect(d.context.tasks.t1!.failures).toBe(0);
  });

  it('retries an interrupted task by itself after a resume that asked for it', () => {
    const d = interrupted().finishTask('t2');
    d.send({ type: 'run.resumed', retry_interrupted: true }).finishTask('t1', 'interrupted');
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 3 });
  });

  it('BUG: ignores a task.retry whose attempt is not the next one, without re-entering exec or writing records', () => {
    const d = interrupted().finishTask('t2');
    const mark = d.records.length;
    d.send({ type: 'task.retry', task_id: 't1', attempt: 5, reason: 'wrong attempt' });
    expect(d.snapshot.value).toBe('stopped');
    expect(d.context.tasks.t1).toMatchObject({ status: 'interrupted', attempt: 1 });
    expect(d.since(mark)).toEqual([]);
  });
});

describe('pipeline machine: cancel', () => {
  it('waits in cancelling until every running attempt has finished, then hands off and ends cancelled', () => {
    const d = toExec(new Driver(makeInput({ workers: 3 })), independent(4));
    const started = d.recorded('task_started').length;
    const stoppedBefore = d.stopped.length;
    d.send({ type: 'cancel.requested', force: false });
    expect(d.snapshot.value).toBe('cancelling');
    expect(d.stopped.slice(stoppedBefore).filter((id) => id.startsWith('attempt:'))).toEqual(['attempt:t1:a1', 'attempt:t2:a1', 'attempt:t3:a1']);
    d.finishTask('t1', 'interrupted');
    expect(d.snapshot.value).toBe('cancelling');
    d.finishTask('t2', 'completed');
    expect(d.snapshot.value).toBe('cancelling');
    d.finishTask('t3', 'failed');
    expect(d.snapshot.value).toBe('cancelHandoff');
    expect(d.context.endingStage).toBe('team-exec');
    expect(d.spawned.at(-1)).toMatchObject({ src: 'writeHandoff', input: { stage: 'team-cancel', next: 'end (cancelled)' } });
    d.handoff();
    expect(d.snapshot.value).toBe('cancelled');
    expect(d.snapshot.status).toBe('done');
    expect(d.records.at(-1)).toEqual({ event: 'run_cancelled', reason: 'cancelled by request' });
    expect(d.recorded('task_started')).toHaveLength(started);
    expect(d.context.tasks.t4!.status).toBe('pending');
    expect(d.context.tasks.t2!.status).toBe('completed');
  });

  it('ignores a stale finish event while cancelling', () => {
    const d = toExec(new Driver()).send({ type: 'cancel.requested', force: false });
    d.send({ type: 'task.finished', task_id: 't1', attempt: 2, status: 'completed', evidence: 'stale', artifacts: [] });
    expect(d.snapshot.value).toBe('cancelling');
    expect(d.context.tasks.t1!.status).toBe('running');
  });

  it('waits for the stage agent of a single-agent stage before it hands off', () => {
    const d = new Driver().send({ type: 'cancel.requested', force: false });
    expect(d.stopped).toEqual(['attempt:plan:a1']);
    expect(d.snapshot.value).toBe('cancelling');
    d.send({ type: 'task.finished', task_id: 'plan', attempt: 1, status: 'interrupted', evidence: 'stopped', artifacts: [] });
    expect(d.snapshot.value).toBe('cancelHandoff');
    expect(d.context.endingStage).toBe('team-plan');
    expect(d.handoff().records.at(-1)).toEqual({ event: 'run_cancelled', reason: 'cancelled by request' });
  });

  it('hands off at once when nothing runs, as in a stopped run', () => {
    const d = interrupted().finishTask('t2').send({ type: 'cancel.requested', force: true });
    expect(d.snapshot.value).toBe('cancelHandoff');
    expect(d.context.cancelForce).toBe(true);
    d.handoff();
    expect(d.snapshot.value).toBe('cancelled');
  });

  it('keeps a forced cancel forced when a second, polite request arrives', () => {
    const d = toExec(new Driver()).send({ type: 'cancel.requested', force: true }).send({ type: 'cancel.requested', force: false });
    expect(d.snapshot.value).toBe('cancelling');
    expect(d.context.cancelForce).toBe(true);
  });

  it('starts nothing new after the cancel, whatever finishes', () => {
    const d = toExec(new Driver(makeInput({ workers: 1 })), independent(3)).send({ type: 'cancel.requested', force: false });
    const mark = d.records.length;
    d.finishTask('t1', 'failed');
    expect(d.since(mark)).toEqual([]);
    expect(d.snapshot.value).toBe('cancelHandoff');
    d.handoff();
    expect(d.since(mark).map((r) => r.event)).toEqual(['run_cancelled']);
  });
});
