// Reconcile after kill -9 of the orchestrator: a live worker is re-adopted, a finished one's result adopted.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tmuxPath, tmuxServerAnswers } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { attemptDir, isAlive, waitFor } from '../helpers/recovery-wait.js';
import { expectCleanCompletion, finishes, killWhileRunning, ledgerOf, SLOW_GO_TMUX } from './reconcile-run.js';

describe('runtime/attempt (re-adopting after kill -9)', () => {
  afterEach(removeRecoveryProjects);

  it('re-adopts a live process worker instead of starting the attempt again', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    expect(isAlive(handle), 'the worker outlives its orchestrator').toBe(true);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('t1 a1 re-adopted, still running');
    expect(project.events().filter((e) => e.event === 'attempt_spawned' && e.task_id === 't1')).toHaveLength(1);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(String(project.events().find((e) => e.event === 'task_finished' && e.task_id === 't1')!.evidence)).not.toMatch(/^recovered/);
    expect(ledgerOf(project, 't1')).toEqual([1]);
    await expectCleanCompletion(project);
  });

  it('re-adopts a live tmux worker instead of starting the attempt again, and leaves no server', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec', { tmux: true });
    const handle = await killWhileRunning(project, 't1', true);
    expect(isAlive(handle), 'the pane outlives its orchestrator').toBe(true);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('t1 a1 re-adopted, still running');
    expect(project.events().filter((e) => e.event === 'attempt_spawned' && e.task_id === 't1')).toHaveLength(1);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(ledgerOf(project, 't1')).toEqual([1]);
    await expectCleanCompletion(project);
    expect(await tmuxServerAnswers(project.runId(), project.tmuxDir!)).toBe(false);
  });

  it('re-adopts a tmux pane recorded by an orchestrator that died before releasing it, and runs its attempt once', { timeout: 240_000 }, async () => {
    // tmux is slow to release panes here, so the kill lands between the pane's record and its release;
    // a short watchdog turns a pane that is never released into a failure instead of a 10-minute wait.
    const env = { PATH: `${SLOW_GO_TMUX}:${process.env.PATH ?? ''}`, REAL_TMUX: await tmuxPath() };
    const project = makeRecoveryProject('slow-exec', { tmux: true, env, config: { watchdog: { statusCheckMs: 10_000, reassignMs: 20_000 } } });
    const handle = await killWhileRunning(project, 't1', true);
    expect(isAlive(handle), 'the pane outlives its orchestrator').toBe(true);
    expect(existsSync(join(attemptDir(project, 't1', 1), 'pid.json')), 'the pane was not released yet').toBe(false);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(ledgerOf(project, 't1')).toEqual([1]);
    await expectCleanCompletion(project);
    expect(await tmuxServerAnswers(project.runId(), project.tmuxDir!)).toBe(false);
  });

  it('adopts the result of a worker that finished while no orchestrator watched', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    const dir = attemptDir(project, 't1', 1);
    await waitFor('the worker to finish and leave its result', () => existsSync(join(dir, 'exit.json')) && existsSync(join(dir, 'result.json')) && !isAlive(handle), 60_000);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('t1 a1 ended while no orchestrator watched');
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(String(project.events().find((e) => e.event === 'task_finished' && e.task_id === 't1')!.evidence)).toMatch(/^recovered after a restart/);
    expect(ledgerOf(project, 't1')).toEqual([1]);
    await expectCleanCompletion(project);
  });
});
