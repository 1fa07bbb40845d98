// A clock set back between a crash and a resume: the events the resume writes still sort after
// the ones already in the log, so the log reads in the order it was written.
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { killWorkerGroup } from '../helpers/recovery-wait.js';
import { expectCleanCompletion, killWhileRunning } from './reconcile-run.js';

// The same name, stamped a day later (what a clock a day behind sees when it resumes).
function dayLater(name: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{6})(\d{6})Z(.*)$/.exec(name)!;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + 86_400_000);
  const ymd = `${day.getUTCFullYear()}${String(day.getUTCMonth() + 1).padStart(2, '0')}${String(day.getUTCDate()).padStart(2, '0')}`;
  return `${ymd}T${m[4]}${m[5]}Z${m[6]}`;
}

describe('checkpoint/time (a takeover after the clock went back)', () => {
  afterEach(removeRecoveryProjects);

  it('writes the events of a resume after every event already in the log', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const handle = await killWhileRunning(project, 't1');
    await killWorkerGroup(project, handle.pgid);
    for (const name of project.eventNames()) renameSync(join(project.eventsDir(), name), join(project.eventsDir(), dayLater(name)));
    const before = project.eventNames();

    const resumed = await project.team('resume', '--retry-interrupted');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const after = project.eventNames();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((n) => n.split('-')[1])).toContain('run_resumed');
    expect((await project.statusJson()).status).toBe('completed');
    await expectCleanCompletion(project);
  });
});
