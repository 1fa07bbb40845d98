// Reconcile after kill -9 of the orchestrator: an attempt whose worker died without a result, or never
// may have started, is recorded interrupted; exec waits for a decision, read-only stages retry on
// their own; an attempt whose worker never started is started without a question.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayOf } from '../helpers/recovery-checks.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { attemptDir, killWorkerGroup } from '../helpers/recovery-wait.js';
import { expectCleanCompletion, finishes, killWhileRunning, ledgerOf } from './reconcile-run.js';

// Exit 4 with t1 a1 interrupted and the hint in `team status`; then --retry-interrupted runs attempt 2 once.
async function expectDecisionThenRetry(project: RecoveryProject): Promise<void> {
  const stopped = await project.team('resume');

  expect(stopped.exitCode, stopped.stderr).toBe(4);
  expect(finishes(project, 't1')).toEqual([[1, 'interrupted']]);
  expect((await project.team('status')).stdout).toContain(`decision needed: t1 attempt 1 was interrupted; \`team resume --run ${project.runId()} --retry-interrupted\` retries it`);
  expect(await replayOf(project)).toEqual({ value: 'stopped', status: 'active', pending: [] });

  const retried = await project.team('resume', '--retry-interrupted');

  expect(retried.exitCode, retried.stderr).toBe(0);
  expect(finishes(project, 't1')).toEqual([
    [1, 'interrupted'],
    [2, 'completed'],
  ]);
  expect(ledgerOf(project, 't1')).toEqual([2]);
  await expectCleanCompletion(project);
}

describe('runtime/attempt (interrupted attempts after kill -9)', () => {
  afterEach(removeRecoveryProjects);

  it('records a worker that died without a result as interrupted, stops for a decision, and retries it as attempt 2 with --retry-interrupted', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    await killWorkerGroup(project, handle.pgid);

    await expectDecisionThenRetry(project);
  });

  it('starts an attempt whose worker never started without asking: no record, no file, no process of it means it did nothing', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    await killWorkerGroup(project, handle.pgid);
    // What a crash between task_started and the worker's spawn leaves: no attempt_spawned, no attempt folder.
    rmSync(join(project.eventsDir(), project.eventNames().find((n) => /-attempt_spawned-t1-a1-/.test(n))!));
    rmSync(attemptDir(project, 't1', 1), { recursive: true });

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('↻ t1 a1 never started before the orchestrator stopped: starting it now');
    expect(resumed.stderr).toMatch(/teamline: resuming run \S+ at team-exec \(1 attempt\(s\) left running to reconcile\)/);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(ledgerOf(project, 't1')).toEqual([1]);
    await expectCleanCompletion(project);
  });

  it.each([
    ['its wrapper\'s pid file', (dir: string) => rmSync(join(dir, 'exit.json'), { force: true })],
    // A tmux pane opened but not yet recorded waits for its go, which a new pane's go would give it too.
    ['a tmux pane\'s launch file', (dir: string) => {
      rmSync(dir, { recursive: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'prompt.md'), 'the prompt\n');
      writeFileSync(join(dir, 'launch.sh'), '# a pane waiting for its go\n');
    }],
  ])('asks before retrying an attempt whose worker left a trace but no record (%s: it may have run, or may still)', { timeout: 240_000 }, async (_trace, leave) => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    await killWorkerGroup(project, handle.pgid);
    rmSync(join(project.eventsDir(), project.eventNames().find((n) => /-attempt_spawned-t1-a1-/.test(n))!));
    leave(attemptDir(project, 't1', 1));

    await expectDecisionThenRetry(project);
  });

  it.each([
    ['planner', 'slow-plan', 'plan'],
    ['verifier', 'slow-verify', 'verify-1'],
  ])('retries an interrupted %s attempt without --retry-interrupted (a read-only stage)', { timeout: 240_000 }, async (_role, scenario, task) => {
    const project = makeRecoveryProject(scenario);
    const handle = await killWhileRunning(project, task);
    await killWorkerGroup(project, handle.pgid);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(finishes(project, task)).toEqual([
      [1, 'interrupted'],
      [2, 'completed'],
    ]);
    expect(ledgerOf(project, task)).toEqual([2]);
    await expectCleanCompletion(project);
  });
});
