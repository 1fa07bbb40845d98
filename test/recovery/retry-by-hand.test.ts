// A retry recorded by hand (`team state retry`) on a stopped run: the takeover that resumes it
// writes the attempt's task_started itself, so that attempt is started, never reconciled.
import { afterEach, describe, expect, it } from 'vitest';
import { replayOf } from '../helpers/recovery-checks.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { killWorkerGroup } from '../helpers/recovery-wait.js';
import { expectCleanCompletion, finishes, killWhileRunning, ledgerOf } from './reconcile-run.js';

describe('runtime/drive (attempts a takeover starts)', () => {
  afterEach(removeRecoveryProjects);

  it('starts the attempt of a retry recorded with team state retry when the stopped run is resumed', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    await killWorkerGroup(project, handle.pgid);
    expect((await project.team('resume')).exitCode).toBe(4);

    const retry = await project.team('state', 'retry', '--run', project.runId(), '--task', 't1', '--reason', 'by hand');
    expect(retry.exitCode, retry.stderr).toBe(0);
    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(finishes(project, 't1')).toEqual([
      [1, 'interrupted'],
      [2, 'completed'],
    ]);
    expect(ledgerOf(project, 't1')).toEqual([2]);
    expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
    await expectCleanCompletion(project);
  });
});
