// File ownership in the plan (issue 38): two tasks whose files overlap never run at once; tasks
// apart, or claiming nothing, run side by side as before.
import { describe, expect, it } from 'vitest';
import { claimProblem, claimsOverlap, planWidth, sharedClaim } from '../../machines/ownership.js';
import { findPlanProblem } from '../../machines/plan.js';
import type { TaskDef } from '../../machines/types.js';
import { foldRun } from '../../src/log/fold/fold.js';
import { toMachineEvent } from '../../machines/inputs.js';
import { renderStatus } from '../../src/views/status/render.js';
import { makeRunFiles, started } from '../helpers/runs.js';
import { Driver, makeInput } from './drive.js';
import { toExec, verifyOnce } from './routes.js';

const task = (id: string, files?: string[], blockedBy?: string[]): TaskDef => ({ id, title: id, description: id, acceptance: ['ok'], ...(files && { files }), ...(blockedBy && { blockedBy }) });
const running = (d: Driver) => Object.values(d.context.tasks).filter((t) => t.status === 'running').map((t) => t.id).sort();

describe('file claims', () => {
  it('overlap when one claim\'s fixed part is or holds the other\'s', () => {
    expect(claimsOverlap('src/api.ts', 'src/api.ts')).toBe(true);
    expect(claimsOverlap('./src/api.ts', 'src//api.ts')).toBe(true);
    expect(claimsOverlap('src/api', 'src/api/users.ts')).toBe(true);
    expect(claimsOverlap('src/api/**', 'src/api/users.ts')).toBe(true);
    expect(claimsOverlap('**/*.ts', 'docs/a.md')).toBe(true);
    expect(claimsOverlap('src/*.ts', 'src/b.js')).toBe(true);
    expect(claimsOverlap('src/a.ts', 'src/b.ts')).toBe(false);
    expect(claimsOverlap('src/api.ts', 'src/api.ts.bak')).toBe(false);
    expect(claimsOverlap('src/api/**', 'test/api.test.ts')).toBe(false);
    expect(sharedClaim(['a.ts', 'src/x/**'], ['b.ts', 'src/x/y.ts'])).toEqual(['src/x/**', 'src/x/y.ts']);
    expect(sharedClaim(['a.ts'], undefined)).toBeUndefined();
  });

  it('are paths inside the project: a plan that claims one outside it, or a bad one, is refused naming the task', () => {
    expect(claimProblem('src/a.ts')).toBeUndefined();
    expect(claimProblem('/etc/passwd')).toMatch(/absolute path/);
    expect(claimProblem('../other/a.ts')).toMatch(/leaves the project/);
    expect(claimProblem('src/\u0007')).toMatch(/control character/);
    expect(findPlanProblem([task('t1', ['src/a.ts']), task('t2', ['../x'])], 10)).toBe('task "t2" claims "../x", a path that leaves the project in its files');
    expect(findPlanProblem([task('t1', Array.from({ length: 101 }, (_, i) => `f${i}`))], 10)).toMatch(/^task "t1" claims 101 files, over 100/);
  });
});

describe('pipeline machine: file ownership', () => {
  it('starts a task whose files overlap a running task\'s only once that one ended, and the rest at once', () => {
    const d = toExec(new Driver(), [task('t1', ['src/api.ts']), task('t2', ['src/api.ts', 'src/b.ts']), task('t3', ['docs/**']), task('t4')]);
    // Three workers: t1, t3 and t4 (which claims nothing) start; t2 waits for t1's file though a worker is idle.
    expect(running(d)).toEqual(['t1', 't3', 't4']);
    d.finishTask('t3');
    expect(running(d)).toEqual(['t1', 't4']);
    expect(d.context.tasks.t2!.status).toBe('pending');
    d.finishTask('t1');
    expect(running(d)).toEqual(['t2', 't4']);
  });

  it('keeps a folder\'s claim and a file in it apart, and a retried task still holds its files', () => {
    const d = toExec(new Driver(), [task('t1', ['src/api/**']), task('t2', ['src/api/users.ts'])]);
    expect(running(d)).toEqual(['t1']);
    d.finishTask('t1', 'failed');
    // t1's second attempt holds the folder again: t2 still waits.
    expect(running(d)).toEqual(['t1']);
    d.finishTask('t1');
    expect(running(d)).toEqual(['t2']);
  });

  it('holds the files a running attempt reserved through team_reserve, until that attempt ends', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), [task('t1'), task('t2'), task('t3', ['src/a.ts'])]);
    expect(running(d)).toEqual(['t1', 't2']);
    d.send({ type: 'files.reserved', task_id: 't1', attempt: 1, files: ['src/a.ts'] });
    d.finishTask('t2');
    // A worker is free, but t1 holds src/a.ts.
    expect(running(d)).toEqual(['t1']);
    d.finishTask('t1');
    expect(running(d)).toEqual(['t3']);
  });

  it('replays a team_reserved record as the machine\'s files.reserved', () => {
    const record = { event: 'team_reserved', run_id: 'r', at: '2026-01-01T00:00:00.000Z', key: 'k', read_through: 0, task_id: 't1', attempt: 2, worker: 'worker-1', files: ['src/a.ts'], held: [] };
    expect(toMachineEvent(record as never)).toEqual({ type: 'files.reserved', task_id: 't1', attempt: 2, files: ['src/a.ts'] });
  });

  it('measures the plan\'s width: tasks ordered by blockedBy or sharing files never count twice', () => {
    expect(planWidth([task('a'), task('b'), task('c')])).toBe(3);
    // The diamond: a; b and c after a; d after both.
    expect(planWidth([task('a'), task('b', undefined, ['a']), task('c', undefined, ['a']), task('d', undefined, ['b', 'c'])])).toBe(2);
    expect(planWidth([task('a', ['src/x.ts']), task('b', ['src/x.ts']), task('c', ['docs/**'])])).toBe(2);
    // A chain through a task that is not a direct dependency still orders them.
    expect(planWidth([task('a'), task('b', undefined, ['a']), task('c', undefined, ['b'])])).toBe(1);
  });

  it('stops counting the width at the workers there are: a wider plan is as wide as the workers', () => {
    const wide = Array.from({ length: 200 }, (_, i) => task(`t${i + 1}`));
    expect(planWidth(wide)).toBe(200);
    expect(planWidth(wide, 8)).toBe(8);
    // A plan narrower than the workers keeps its own width.
    expect(planWidth([task('a'), task('b', undefined, ['a']), task('c', undefined, ['a'])], 8)).toBe(2);
    // Past the checked size the width is not looked for, and is still no more than the workers.
    expect(planWidth(Array.from({ length: 400 }, (_, i) => task(`t${i + 1}`)), 8)).toBe(8);
  });

  it('starts as many workers as the plan is wide, says so, and gives every worker back to the fix loop', () => {
    const d = toExec(new Driver(makeInput({ workers: 3 })), [task('t1', ['src/a.ts']), task('t2', ['src/a.ts']), task('t3')]);
    expect(d.recorded('workers_sized')).toEqual([{ event: 'workers_sized', asked: 3, width: 2, workers: ['worker-1', 'worker-2'] }]);
    const workersOf = (ids: string[]) => new Set(ids.map((id) => d.context.tasks[id]!.worker));
    d.finishTask('t1').finishTask('t3').finishTask('t2');
    expect(workersOf(['t1', 't2', 't3'])).toEqual(new Set(['worker-1', 'worker-2']));
    // The fix loop's tasks, one per defect and apart, go to every worker again.
    verifyOnce(d.handoff(), 'fail', [1, 2, 3].map((n) => ({ id: `d${n}`, description: `defect ${n}` })));
    expect(d.context.planWidth).toBeUndefined();
    const fixes = Object.keys(d.context.tasks).filter((id) => id.startsWith('fix-'));
    expect(fixes).toHaveLength(3);
    expect(workersOf(fixes)).toEqual(new Set(['worker-1', 'worker-2', 'worker-3']));
  });

  it('sizes nothing when the plan is as wide as the workers', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), [task('t1'), task('t2'), task('t3')]);
    expect(d.recorded('workers_sized')).toEqual([]);
    expect(d.context.planWidth).toBeUndefined();
  });
});

describe('team status: a task waiting for another\'s files', () => {
  it('says which running task holds a file a pending task claims, and the task list carries the files', () => {
    const def = (id: string, files?: string[]) => ({ id, title: id, description: 'd', ...(files && { files }) });
    const view = foldRun(makeRunFiles([
      { event: 'tasks_assigned', tasks: [{ task_id: 't1', worker: 'worker-1', task: def('t1', ['src/app.ts']) }, { task_id: 't2', worker: 'worker-2', task: def('t2', ['src/app.ts', 'src/b.ts']) }, { task_id: 't3', worker: 'worker-1', task: def('t3') }] },
      started('t1', 1),
    ]), '/nonexistent-project');
    const status = renderStatus(view, true);
    expect(status).toMatch(/ {2}t2 +pending +t2\n {4}waits for t1, which holds src\/app\.ts\n/);
    expect(status).not.toMatch(/t3 +pending +t3\n {4}waits/);
    expect(view.team?.files?.get('t2')).toEqual(['src/app.ts', 'src/b.ts']);
  });
});
