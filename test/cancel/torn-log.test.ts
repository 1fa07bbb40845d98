// `team cancel` on a run whose log cannot be replayed (a torn event file): the workers the log
// recorded as the run's own are stopped all the same, and the command says why it went no further.
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

    expect(cancel.exitCode).toBe(1);
    expect(cancel.stderr).toMatch(/^team: determinism violation: .*; the run's log cannot be replayed, so run \S+ was not marked cancelled, but its 2 recorded worker\(s\) were stopped$/m);
    expect(cancel.stderr).not.toMatch(/\n\s+at /);
    expect(isAlive(handle)).toBe(false);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
  });
});
