// `team cancel` on a run whose log cannot be replayed (a torn event file): the workers the log
// recorded as the run's own are stopped all the same, and the run is recorded cancelled in a way
// every reader takes (status, list, wait), naming the damaged file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { isAlive } from '../helpers/recovery-wait.js';
import { killWhileRunning } from '../recovery/reconcile-run.js';

describe('team cancel (a log that cannot be replayed)', () => {
  afterEach(removeRecoveryProjects);

  it.each([[[]], [['--force']]])('stops the recorded workers of a run with a torn event (%j)', { timeout: 240_000 }, async (flags: string[]) => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    expect(isAlive(handle)).toBe(true);
    const torn = join(project.eventsDir(), project.eventNames().find((n) => /-tasks_assigned-/.test(n))!);
    const text = readFileSync(torn, 'utf8');
    writeFileSync(torn, text.slice(0, text.length / 2));

    const cancel = await project.team('cancel', ...flags);

    const name = torn.split('/').at(-1)!;
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    expect(cancel.stderr).toContain(`run ${project.runId()} cancelled: its 2 recorded worker(s) were stopped; cancelled by team cancel with a log that cannot be replayed (damaged: events/${name}): `);
    expect(cancel.stderr).not.toMatch(/\n\s+at /);
    expect(isAlive(handle)).toBe(false);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);

    const status = await project.team('status', '--json');
    const view = JSON.parse(status.stdout) as { status: string; outcome: string };
    expect(view.status).toBe('cancelled');
    expect(view.outcome).toContain(`damaged: events/${name}`);
    expect((await project.team('status')).stdout).toContain(name);
    const list = await project.team('list', '--json');
    expect((JSON.parse(list.stdout) as Array<{ id: string; status: string }>).find((row) => row.id === project.runId())?.status).toBe('cancelled');
    const wait = await project.team('wait', '--timeout', '5');
    expect(wait.exitCode).toBe(3);
    const again = await project.team('cancel');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr + again.stdout).toContain('cancelled');
  });
});
