import { describe, expect, it } from 'vitest';
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
    expect(findPlanProblem(fixes, 50)).toBeUndefined();
  });

  it('BUG: gives fix tasks unique ids even when a renamed duplicate meets another defect id', () => {
    const fixes = makeFixTasks([{ id: 'x-3', description: 'a' }, { id: 'x', description: 'b' }, { id: 'x', description: 'c' }], 1, 1);
    expect(new Set(fixes.map((f) => f.id)).size).toBe(3);
  });
});
