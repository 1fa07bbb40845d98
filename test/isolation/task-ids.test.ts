// Task ids against git and against each other: an id git cannot hold in a branch name still gets
// its branch, and a plan task named like a fix task is refused, so no attempt ever runs twice.
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, showFile } from '../helpers/git-project.js';

afterAll(removeProjects);

describe('worktree isolation: task ids', () => {
  it('gives tasks and fix tasks whose ids git refuses in a ref (a..b, x.lock, x., defect d.lock) their own branches', async () => {
    const ids = ['a..b', 'x.lock', 'x.'];
    const project = makeGitProject({
      plan: { tasks: ids.map((id) => ({ id, acceptance: ['done'] })) },
      verify: { failPasses: 1, defects: [{ id: 'd.lock', description: 'still broken', task: 'x.lock' }] },
    });
    const result = await project.run('2:executor', 'odd ids', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const integration = `team/${run.runId}`;
    const merged = eventsOf(run.events, 'merge_done').map((e) => [e.task_id, e.branch]);
    expect(merged.sort()).toEqual([
      ['a..b', `${integration}--a++b`],
      ['fix-1-d.lock', `${integration}--fix-1-d+lock`],
      ['x.', `${integration}--x+`],
      ['x.lock', `${integration}--x+lock`],
    ]);
    for (const id of [...ids, 'fix-1-d.lock']) expect(showFile(project, integration, `sim-output/${id}.txt`)).toContain(`task ${id} attempt 1`);
    expect(result.stderr).not.toContain('not a valid branch name');
  });

  it('refuses a plan task named like a fix task, and the retried plan\'s fix task runs once', async () => {
    const project = makeGitProject({
      plan: { tasks: [{ id: 't1', acceptance: ['done'] }] },
      verify: { failPasses: 1, defects: [{ id: 'd1', description: 'still broken', task: 't1' }] },
      rules: [{ match: { stage: 'team-plan', attempt: 1 }, do: { plan: { tasks: [{ id: 't1', acceptance: ['done'] }, { id: 'fix-1-d1', acceptance: ['done'] }] } } }],
    });
    const result = await project.run('2:executor', 'a fix-like id', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const finished = eventsOf(project.readRun().events, 'task_finished');
    const plan = finished.filter((e) => e.task_id === 'plan');
    expect(plan.map((e) => [e.attempt, e.status])).toEqual([[1, 'failed'], [2, 'completed']]);
    expect(plan[0]!.evidence).toBe('invalid plan: task id "fix-1-d1" has the form of the tasks teamline makes itself (fix-<loop>-<defect>); name it otherwise');
    expect(finished.filter((e) => e.task_id === 'fix-1-d1').map((e) => [e.attempt, e.status])).toEqual([[1, 'completed']]);
  });
});
