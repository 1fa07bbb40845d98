import { describe, expect, it } from 'vitest';
import { parseTaskId, toIterationId } from '../../../workers/sim/task-id.js';

describe('task-id', () => {
  it('reads the planner and analyst ids of the first iteration', () => {
    expect(parseTaskId('plan')).toEqual({ id: 'plan', base: 'plan', iteration: 1, kind: 'plan' });
    expect(parseTaskId('prd')).toMatchObject({ kind: 'prd', iteration: 1 });
  });

  it('reads the pass number of verify and review tasks', () => {
    expect(parseTaskId('verify-2')).toMatchObject({ kind: 'verify', pass: 2, iteration: 1 });
    expect(parseTaskId('review-1')).toMatchObject({ kind: 'review', pass: 1 });
  });

  it('reads the loop and defect of a fix task', () => {
    expect(parseTaskId('fix-2-d-7')).toMatchObject({ kind: 'fix', loop: 2, defectId: 'd-7' });
  });

  it('reads the iteration prefix of ralph iterations', () => {
    expect(parseTaskId('i3.verify-1')).toMatchObject({ base: 'verify-1', iteration: 3, kind: 'verify', pass: 1 });
    expect(parseTaskId('i2.t3')).toMatchObject({ id: 'i2.t3', base: 't3', iteration: 2, kind: 'exec' });
  });

  it('takes any other id for an exec task', () => {
    expect(parseTaskId('t12')).toMatchObject({ kind: 'exec', iteration: 1 });
    expect(parseTaskId('verify-x')).toMatchObject({ kind: 'exec' });
  });

  it('prefixes planner ids only from iteration 2 on', () => {
    expect(toIterationId('t1', 1)).toBe('t1');
    expect(toIterationId('t1', 2)).toBe('i2.t1');
  });
});
