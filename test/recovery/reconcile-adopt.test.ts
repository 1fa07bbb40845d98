// Reconcile after kill -9 of the orchestrator: a live worker is re-adopted, a finished one's result adopted.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tmuxPath, tmuxServerAnswers } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { attemptDir, isAlive } from '../helpers/recovery-wait.js';
import { isProcessAlive, readPidStart, signalProcess } from '../../src/sys/proc.js';
import { expectCleanCompletion, finishes, killWhileRunning, ledgerOf, SLOW_GO_TMUX } from './reconcile-run.js';
import { waitFor } from '../helpers/wait-event.js';

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

  it('stops what a finished attempt left running when its orchestrator died before stopping it, and not the live worker it re-adopts', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    // The planner's attempt finished before the kill: a daemon of it (a session of its own, the
    // attempt's marker), as a kill between its end and the stop of its escapees would leave.
    const finished = project.events().find((e) => e.event === 'task_finished' && e.task_id === 'plan')!;
    const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore', env: { ...process.env, TEAM_RUN_ID: project.runId(), TEAM_TASK_ID: 'plan', TEAM_ATTEMPT: String(finished.attempt) } });
    const daemon = { pid: child.pid!, start: readPidStart(child.pid!)! };
    try {
      const resumed = project.spawn('resume');
      await waitFor('the daemon to be stopped', () => !isProcessAlive(daemon.pid, daemon.start), 30_000);
      // t1's agent sleeps 6 s: its worker, of an attempt not finished, is still running.
      expect(isAlive(handle), 'the live worker is left to its attempt').toBe(true);
      const result = await resumed.result;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toContain('t1 a1 re-adopted, still running');
      expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
      await expectCleanCompletion(project);
    } finally {
      if (isProcessAlive(daemon.pid, daemon.start)) signalProcess(daemon.pid, 'SIGKILL');
    }
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
