// The built `team` CLI refuses a malformed plan at team-plan, saying what is wrong with it.
import { afterAll, describe, expect, it } from 'vitest';
import { checkHandoffShape, readHandoffs } from '../../handoffs/read.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject } from '../helpers/sim-project.js';

afterAll(removeProjects);

// Runs the plan of `scenario`, expects the run to fail at team-plan, and returns its stderr and failure reason.
async function runFailingPlan(scenario: string, config: Record<string, unknown> = {}): Promise<{ stderr: string; reason: string }> {
  const project = makeSimProject(scenario, config);
  const result = await project.team('2:executor', 'add input validation to the API', '--agent', 'sim');
  expect(result.exitCode, result.stderr).toBe(1);
  const { events, paths } = project.readRun();
  const entered = eventsOf(events, 'stage_entered').map((e) => e.stage);
  expect(entered).toEqual(['team-plan']);
  expect(eventsOf(events, 'plan_accepted')).toEqual([]);
  expect(eventsOf(events, 'task_finished').every((e) => e.task_id === 'plan' && e.status === 'failed')).toBe(true);
  const failed = eventsOf(events, 'run_failed');
  expect(failed).toHaveLength(1);
  expect(failed[0]!.reason).toMatch(/^team-plan failed/);
  const handoffs = readHandoffs(paths.handoffsDir);
  expect(handoffs.map((h) => [h.index, h.stage])).toEqual([[1, 'team-plan']]);
  expect(checkHandoffShape(handoffs[0]!.text)).toBeUndefined();
  expect(handoffs[0]!.text).toContain('end (failed)');
  return { stderr: result.stderr, reason: failed[0]!.reason };
}

describe('pipeline plan', () => {
  it('fails at team-plan on a dependency cycle, naming the cycle path', async () => {
    const { stderr, reason } = await runFailingPlan('plan-cycle');
    expect(reason).toContain('dependency cycle: t1 → t3 → t2 → t1');
    expect(stderr).toContain('dependency cycle: t1 → t3 → t2 → t1');
  });

  it('fails at team-plan on a blockedBy naming no task, naming the unknown id', async () => {
    const { stderr, reason } = await runFailingPlan('plan-unknown-blocker');
    expect(reason).toContain('task "t2" is blockedBy "t9", which is not a task of the plan');
    expect(stderr).toContain('"t9"');
  });

  it('fails at team-plan on more tasks than team.maxTasks, naming the count and the limit', async () => {
    const { stderr, reason } = await runFailingPlan('e2e-too-many-tasks', { team: { maxTasks: 5 } });
    expect(reason).toContain('the plan has 6 tasks, over team.maxTasks (5)');
    expect(stderr).toContain('6 tasks, over team.maxTasks (5)');
  });

  it('fails at team-plan on a plan that is not JSON, saying so', async () => {
    const { stderr, reason } = await runFailingPlan('plan-not-json');
    expect(reason).toContain('not valid JSON');
    expect(stderr).toContain('not valid JSON');
  });
});
