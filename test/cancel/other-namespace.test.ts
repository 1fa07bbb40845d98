// `team cancel` from a pid namespace that cannot see the orchestrator (an agent CLI's sandbox runs
// each command in one of its own): the orchestrator is asked through the run folder and does the
// shutdown itself; the run is never marked cancelled behind its back. Real namespaces: root runs
// `unshare --pid --fork --mount-proc`, so the test needs root and util-linux's unshare.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects } from '../helpers/cancel-run.js';
import { CAN_UNSHARE, endNamespaces, makeRepoProject, NAMESPACE_TASKS as TASKS, teamInNamespace } from '../helpers/namespace-run.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { PID_NS } from '../../src/sys/proc.js';
import { expectCleanCancel } from './clean-end.js';

afterEach(async () => {
  endNamespaces();
  await cleanUpCancelProjects();
});

describe.skipIf(!CAN_UNSHARE)('team cancel from another process namespace', () => {
  it('asks the live orchestrator, which cancels the run itself and stops both workers', async () => {
    const project = makeRepoProject();
    const run = project.start('2:executor', 'cancel me from a sandbox');
    const runId = await project.waitForWorkers(TASKS);
    expect(project.events(runId).find((e) => e.event === 'run_started')).toMatchObject({ isolation: { mode: 'worktree' } });

    const cancel = await teamInNamespace(project, 'cancel', '--run', runId);
    const exit = await run.exited;

    expect(cancel.stderr).toContain(`the orchestrator runs in another process namespace (pid ${run.pid} there); asked it to cancel run ${runId}; waiting`);
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    expect(cancel.stderr).not.toContain('no live orchestrator');
    expect(cancel.exitCode).toBe(0);
    expect(exit.exitCode).toBe(3);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'cancel_requested').map((e) => e.by)).toEqual(['team cancel']);
    expect(events.filter((e) => e.event === 'run_resumed')).toEqual([]);
    await expectCleanCancel(project, runId, TASKS);
    expect(await leftoverProcesses(project.runDir(runId), runId)).toEqual([]);
  }, 120_000);

  it('lets an orchestrator inside a namespace be cancelled from outside it, by itself', async () => {
    const project = makeRepoProject();
    const inside = teamInNamespace(project, '2:executor', 'drive me in a sandbox');
    const runId = await project.waitForWorkers(TASKS);
    const lock = JSON.parse(readFileSync(join(project.runDir(runId), 'lock.json'), 'utf8')) as { pid: number; pidNs: string };
    // Pid 1 of its namespace: a pid that, here, names another process; its workers' pids are of that namespace too.
    expect(lock.pid).toBe(1);
    expect(lock.pidNs).not.toBe(PID_NS);
    expect(new Set(project.handles(runId).map((h) => (h as { pidNs?: string }).pidNs))).toEqual(new Set([lock.pidNs]));

    const cancel = await project.run('cancel', '--run', runId);
    const exit = await inside;

    expect(cancel.stderr).toContain(`the orchestrator runs in another process namespace (pid 1 there); asked it to cancel run ${runId}; waiting`);
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    expect(cancel.exitCode).toBe(0);
    expect(exit.exitCode).toBe(3);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'cancel_requested').map((e) => e.by)).toEqual(['team cancel']);
    expect(events.filter((e) => e.event === 'run_cancelled')).toHaveLength(1);
    await expectCleanCancel(project, runId, TASKS);
    expect(await leftoverProcesses(project.runDir(runId), runId)).toEqual([]);
  }, 120_000);
});
