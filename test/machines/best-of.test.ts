// The best of N in the pipeline machine (issue 38): a task asked for K candidates becomes K candidate
// tasks that run at once (their shared files hold no sibling back), then its select task, which
// starts once every candidate ended and one completed; dependents wait for the select task.
import { describe, expect, it } from 'vitest';
import { planWidth } from '../../machines/ownership.js';
import { findPlanProblem } from '../../machines/plan.js';
import type { AttemptInput, TaskDef } from '../../machines/types.js';
import { Driver, makeInput } from './drive.js';
import { toExec } from './routes.js';

const task = (id: string, extra: Partial<TaskDef> = {}): TaskDef => ({ id, title: id, description: id, acceptance: ['ok'], ...extra });
const running = (d: Driver) => Object.values(d.context.tasks).filter((t) => t.status === 'running').map((t) => t.id).sort();
const worktrees = (overrides = {}) => new Driver(makeInput({ workBranch: 'team/r', routing: { reviewFiles: 10, fixer: 'executor', known: ['sim', 'claude', 'codex'] }, ...overrides }));
const inputOf = (d: Driver, id: string) => d.spawned.filter((s) => s.src === 'runAttempt' && (s.input as AttemptInput).taskId === id).map((s) => s.input as AttemptInput).at(-1);

describe('pipeline machine: the best of N', () => {
  it('runs a task\'s candidates at once though they claim the same file, and its dependents only after the pick', () => {
    const d = toExec(worktrees(), [task('t1', { bestOf: 2, files: ['src/a.ts'] }), task('t2', { blockedBy: ['t1'] })]);
    expect(d.context.order).toEqual(['t1--c1', 't1--c2', 't1', 't2']);
    expect(running(d)).toEqual(['t1--c1', 't1--c2']);
    expect(d.context.tasks['t1--c1']!.worker).not.toBe(d.context.tasks['t1--c2']!.worker);
    expect(inputOf(d, 't1--c2')!.def!.candidateOf).toBe('t1');
    d.finishTask('t1--c1', 'failed');
    // c1 is retried like any task; t1 waits until every candidate ended.
    expect(running(d)).toEqual(['t1--c1', 't1--c2']);
    d.finishTask('t1--c1', 'failed');
    expect(d.context.tasks['t1--c1']!.status).toBe('failed');
    expect(running(d)).toEqual(['t1--c2']);
    d.finishTask('t1--c2');
    expect(running(d)).toEqual(['t1']);
    const select = inputOf(d, 't1')!;
    expect([select.stage, select.role, select.candidates]).toEqual(['team-verify', 'selector', ['t1--c1', 't1--c2']]);
    expect(d.recorded('task_started').at(-1)).toMatchObject({ task_id: 't1', stage: 'team-verify' });
    d.finishTask('t1');
    expect(running(d)).toEqual(['t2']);
  });

  it('fails the task when every candidate failed, and what waits for it is blocked', () => {
    const d = toExec(worktrees(), [task('t1', { bestOf: 2 }), task('t2', { blockedBy: ['t1'] })]);
    for (const id of ['t1--c1', 't1--c2', 't1--c1', 't1--c2']) d.finishTask(id, 'failed');
    expect(d.context.tasks.t1!.status).toBe('failed');
    expect(d.context.tasks.t1!.evidence).toMatch(/^every candidate failed: t1--c1 \(.*\); t1--c2 \(/);
    expect(d.context.tasks.t2!.evidence).toBe('blocked by failed task t1');
  });

  it('puts the candidates on the task\'s agents in turn, and records who runs what and why', () => {
    const d = toExec(worktrees({ workers: 4 }), [task('t1', { bestOf: 3, agents: ['claude', 'codex'] })]);
    expect(['t1--c1', 't1--c2', 't1--c3'].map((id) => inputOf(d, id)!.agent)).toEqual(['claude', 'codex', 'claude']);
    const decided = d.recorded('routing_decided').flatMap((r) => r.decisions);
    expect(decided).toContainEqual({ task_id: 't1--c2', role: 'executor', agent: 'codex', why: 'candidate 2 of 3 of t1' });
    expect(decided).toContainEqual({ task_id: 't1', role: 'selector', agent: 'sim', why: 'picks the best of 3 candidates of t1 once they ended, and merges it' });
  });

  it('gives every planned task the run\'s --best-of unless it names its own', () => {
    const d = toExec(worktrees({ bestOf: 2 }), [task('t1'), task('t2', { bestOf: 1 })]);
    expect(d.context.order).toEqual(['t1--c1', 't1--c2', 't1', 't2']);
  });

  it('runs the task once without worktrees, and says why', () => {
    const d = toExec(new Driver(makeInput({ bestOf: 2 })), [task('t1')]);
    expect(d.context.order).toEqual(['t1']);
    expect(d.recorded('routing_decided').flatMap((r) => r.decisions).map((x) => x.why)).toContain('runs once, not as the best of 2: candidates need worktrees (a git repository with a commit, and 2 or more workers)');
  });

  it('counts a task\'s candidates as side by side in the plan\'s width', () => {
    const c = (k: number) => task(`t1--c${k}`, { files: ['a.ts'], candidateOf: 't1' });
    expect(planWidth([c(1), c(2), c(3), { id: 't1', blockedBy: ['t1--c1', 't1--c2', 't1--c3'] }])).toBe(3);
    expect(planWidth([task('x', { files: ['a.ts'] }), task('y', { files: ['a.ts'] })])).toBe(1);
  });

  it('refuses a plan that names a candidate or sets candidateOf itself', () => {
    expect(findPlanProblem([task('t1--c1')], 10)).toBe('task id "t1--c1" has the form of the tasks teamline makes itself (<task>--c<k>); name it otherwise');
    expect(findPlanProblem([task('t1', { candidateOf: 't0' })], 10)).toBe('task "t1" has candidateOf, which only teamline sets (a plan asks for candidates with bestOf)');
  });
});
