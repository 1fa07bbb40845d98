import { describe, expect, it } from 'vitest';
import { ID_PATTERN } from '../../src/log/guards.js';
import { findPlanProblem, makeFixTasks, namespacePlan, prefixFor } from '../../machines/plan.js';
import type { TaskDef } from '../../machines/types.js';

const task = (id: string, blockedBy?: string[]): TaskDef => ({ id, title: id, description: id, ...(blockedBy ? { blockedBy } : {}) });

describe('machines/plan', () => {
  it('accepts a valid task graph', () => {
    expect(findPlanProblem([task('a'), task('b', ['a']), task('c', ['a', 'b'])], 50)).toBeUndefined();
  });

  it('names the first problem of an invalid plan in words', () => {
    expect(findPlanProblem([], 50)).toBe('the plan has no task');
    expect(findPlanProblem([task('a'), task('b')], 1)).toBe('the plan has 2 tasks, over team.maxTasks (1)');
    expect(findPlanProblem([task('a b')], 50)).toBe('task id "a b" is not a valid id');
    expect(findPlanProblem([task('a'), task('a')], 50)).toBe('task id "a" is used twice');
    expect(findPlanProblem([task('a', ['z'])], 50)).toBe('task "a" is blockedBy "z", which is not a task of the plan');
    expect(findPlanProblem([task('a', ['a'])], 50)).toBe('task "a" is blocked by itself');
    expect(findPlanProblem([task('a', ['c']), task('b', ['a']), task('c', ['b'])], 50)).toBe('the plan has a dependency cycle: a → c → b → a');
  });

  it('prefixes the ids and blockedBy of iteration k >= 2 with i<k>.', () => {
    expect(prefixFor(1)).toBe('');
    expect(namespacePlan([task('a'), task('b', ['a'])], 1)).toEqual([task('a'), task('b', ['a'])]);
    expect(namespacePlan([task('a'), task('b', ['a'])], 3)).toEqual([{ ...task('a'), id: 'i3.a' }, { ...task('b'), id: 'i3.b', blockedBy: ['i3.a'] }]);
  });

  it('makes one fix task per defect, with ids that are valid task ids', () => {
    const fixes = makeFixTasks([{ id: 'd1', description: 'x' }, { id: '  weird id!', description: 'y', task: 't1' }, { id: '', description: 'z' }], 2, 2);
    expect(fixes.map((f) => f.id)).toEqual(['i2.fix-2-d1', 'i2.fix-2-weird-id-', 'i2.fix-2-3']);
    expect(fixes[1]).toMatchObject({ title: 'Fix defect   weird id! (task t1)', description: 'y', acceptance: ['defect   weird id! no longer reproduces'] });
    for (const fix of fixes) expect(ID_PATTERN.test(fix.id), fix.id).toBe(true);
  });

  it('refuses plan task ids of the forms teamline gives its own tasks, naming the form', () => {
    const reason = (id: string, form: string) => `task id "${id}" has the form of the tasks teamline makes itself (${form}); name it otherwise`;
    expect(findPlanProblem([task('fix-1-d1')], 50)).toBe(reason('fix-1-d1', 'fix-<loop>-<defect>'));
    expect(findPlanProblem([task('i2.t1')], 50)).toBe(reason('i2.t1', 'i<iteration>.<task>'));
    expect(findPlanProblem([task('verify-1')], 50)).toBe(reason('verify-1', 'verify-<pass>, review-<pass>'));
    expect(findPlanProblem([task('review-2')], 50)).toBe(reason('review-2', 'verify-<pass>, review-<pass>'));
    expect(findPlanProblem([task('plan')], 50)).toBe(reason('plan', 'plan, prd, integration'));
    expect(findPlanProblem([task('prd')], 50)).toBe(reason('prd', 'plan, prd, integration'));
    expect(findPlanProblem([task('integration')], 50)).toBe(reason('integration', 'plan, prd, integration'));
    expect(findPlanProblem([task('fix-login'), task('i18n.setup'), task('verify-api'), task('planner'), task('fix-1')], 50)).toBeUndefined();
  });

  it('gives a fix task an id none of the run\'s tasks has', () => {
    const fixes = makeFixTasks([{ id: 'd1', description: 'x' }, { id: 'd2', description: 'y' }], 1, 1, ['t1', 'fix-1-d1']);
    expect(fixes.map((f) => f.id)).toEqual(['fix-1-d1-1', 'fix-1-d2']);
  });

  it('BUG: gives fix tasks unique ids even when a renamed duplicate meets another defect id', () => {
    const fixes = makeFixTasks([{ id: 'x-3', description: 'a' }, { id: 'x', description: 'b' }, { id: 'x', description: 'c' }], 1, 1);
    expect(new Set(fixes.map((f) => f.id)).size).toBe(3);
  });
});
