// The run lock across pid namespaces: a holder in another namespace is alive while its heartbeat
// (the lock file's modification time) is fresh, gone once it is older than 30 s; resume and wait
// there never take a live orchestrator for dead. Real namespaces (`unshare`, root only).
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects } from '../helpers/cancel-run.js';
import { CAN_UNSHARE, endNamespaces, makeRepoProject, NAMESPACE_TASKS, teamInNamespace } from '../helpers/namespace-run.js';
import { waitFor } from '../helpers/wait-event.js';

afterEach(async () => {
  endNamespaces();
  await cleanUpCancelProjects();
});

// Sets the lock's heartbeat `ageMs` into the past.
function ageLock(lockFile: string, ageMs: number): void {
  const then = new Date(Date.now() - ageMs);
  utimesSync(lockFile, then, then);
}

describe.skipIf(!CAN_UNSHARE)('runtime/lock across pid namespaces', () => {
  it('refuses a resume and keeps waiting from another namespace while the orchestrator lives, and its heartbeat is renewed', async () => {
    const project = makeRepoProject();
    const run = project.start('2:executor', 'drive me while a sandbox looks');
    const runId = await project.waitForWorkers(NAMESPACE_TASKS);
    const lockFile = join(project.runDir(runId), 'lock.json');

    const resume = await teamInNamespace(project, 'resume', '--run', runId);
    expect(resume.stderr).toContain(`run ${runId} is driven by another orchestrator: pid ${run.pid} in another process namespace (team run, since `);
    expect(resume.exitCode).toBe(2);
    const wait = await teamInNamespace(project, 'wait', '--run', runId, '--timeout', '1');
    expect(wait.exitCode).toBe(5);

    // A heartbeat set 40 s back is renewed within a beat (5 s) by the live holder.
    ageLock(lockFile, 40_000);
    await waitFor('the heartbeat to be renewed', () => Date.now() - statSync(lockFile).mtimeMs < 10_000, 12_000);
    expect((await teamInNamespace(project, 'wait', '--run', runId, '--timeout', '1')).exitCode).toBe(5);

    expect((await project.run('cancel', '--run', runId)).exitCode).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
  }, 120_000);

  it('takes an orchestrator of another namespace for gone only once its heartbeat is 30 s old', async () => {
    const project = makeRepoProject();
    const inside = teamInNamespace(project, '2:executor', 'drive me in a sandbox that is killed');
    const runId = await project.waitForWorkers(NAMESPACE_TASKS);
    const lockFile = join(project.runDir(runId), 'lock.json');
    // The namespace ends with unshare: the orchestrator and its workers are killed, the lock is left.
    inside.kill('SIGKILL');
    await inside;

    const fresh = await project.run('wait', '--run', runId, '--timeout', '1');
    expect(fresh.exitCode).toBe(5);
    ageLock(lockFile, 31_000);
    const stale = await project.run('wait', '--run', runId, '--timeout', '1');
    expect(stale.exitCode).toBe(6);

    const cancel = await project.run('cancel', '--run', runId);
    expect(cancel.stderr).toContain(`no live orchestrator for run ${runId}: shutting its workers down from the log`);
    expect(cancel.exitCode).toBe(0);
    expect((await project.statusJson()).status).toBe('cancelled');
  }, 120_000);
});
