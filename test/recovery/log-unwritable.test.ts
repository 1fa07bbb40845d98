// A log that cannot be written (its events folder replaced by a file while the run goes on): the
// orchestrator stops with the reason and exit 1, stops its workers, and the run resumes once the
// folder is back; `team resume` on such a run says so and changes nothing.
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MACHINE_SNAPSHOT_FILE } from '../../src/session/machine-snapshot.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended } from '../helpers/recovery-wait.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { expectCleanCompletion, finishes } from './reconcile-run.js';

// Puts a plain file where the events folder was; returns the function that brings the folder back.
function breakLog(project: RecoveryProject): () => void {
  const dir = project.eventsDir();
  renameSync(dir, `${dir}.saved`);
  writeFileSync(dir, 'not a folder\n');
  return () => {
    rmSync(dir);
    renameSync(`${dir}.saved`, dir);
  };
}

const CANNOT_WRITE = /^team: the event log of run \S+ cannot be written \(.*ENOTDIR.*\); the run stopped here and its workers were stopped; `team resume --run \S+` continues it once the log can be written\n$/;

describe('runtime/event-log (a log that cannot be written)', () => {
  afterEach(removeRecoveryProjects);

  it('ends the orchestrator with exit 1 and the reason, and the run completes on resume once the log is back', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const orchestrator = project.spawn('1:executor', 'a run whose log breaks', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
    const repair = breakLog(project);
    const run = await orchestrator.result;

    expect(run.exitCode).toBe(1);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('team: ')).join('\n') + '\n').toMatch(CANNOT_WRITE);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // The machine made records the log could not take: a snapshot of it would skip them on resume.
    expect(existsSync(join(project.runDir(), MACHINE_SNAPSHOT_FILE))).toBe(false);

    const refused = await project.team('resume');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^team: the event log of run \S+ cannot be written \(.*ENOTDIR.*\); nothing was changed; `team resume --run \S+` continues it once the log can be written$/);

    repair();
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(finishes(project, 't1').at(-1)).toEqual([expect.any(Number), 'completed']);
    await expectCleanCompletion(project);
  });

  it('stops the run with the reason when the watchdog cannot record a stalled attempt', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('hang-first', { config: { watchdog: { statusCheckMs: 1_000, reassignMs: 60_000 } } });
    const orchestrator = project.spawn('1:executor', 'a run whose log breaks while an attempt hangs', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
    const repair = breakLog(project);
    const run = await orchestrator.result;

    expect(run.exitCode).toBe(1);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('team: ')).join('\n') + '\n').toMatch(CANNOT_WRITE);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    repair();
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
  });
});
