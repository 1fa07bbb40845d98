// `team scale` on a live run, in a real git repository: up during exec, a kill -9 of the
// orchestrator, down while nothing drives the run (taken when it resumes), and up again. New
// workers get names never used before; a drained worker takes no more work; nothing runs twice.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitAsRepo, GIT_ENV } from '../helpers/git-project.js';
import { ledgerProblems, logProblems, replayOf } from '../helpers/recovery-checks.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';

afterAll(removeRecoveryProjects);

const TASKS = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);
const spawnedOn = (project: RecoveryProject) => project.events().filter((e) => e.event === 'attempt_spawned');

describe('team scale', () => {
  let project: RecoveryProject;

  it('scales up and down during exec across a kill -9 and a resume, never reusing a name', { timeout: 120_000 }, async () => {
    project = makeRecoveryProject('scale', { env: { ...GIT_ENV } });
    Object.assign(project.env, { TEAM_SIM_LEDGER: join(project.dir, '.team', 'sim-ledger.jsonl') });
    commitAsRepo(project.dir);
    const first = project.spawn('2:executor', 'write twelve parts', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(first) });

    const up = await project.team('scale', '3');
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stdout).toContain('to run with 3 workers');
    const grown = await waitForEvent(project, 'workers_changed', undefined, { stopIf: ended(first) });
    expect(grown).toMatchObject({ workers: 3, roster: ['worker-1', 'worker-2', 'worker-3'], added: ['worker-3'], drained: [] });
    const scaled = project.events().find((e) => e.event === 'team_scaled')!;
    expect(scaled).toMatchObject({ workers: 3, by: 'team scale' });
    expect(scaled.file < grown.file).toBe(true);
    await waitFor('an attempt on worker-3', () => spawnedOn(project).some((e) => e.worker === 'worker-3'));

    await killOrchestrator(first);
    // Nothing drives the run: the request waits in its inbox for the next writer.
    const down = await project.team('scale', '1');
    expect(down.exitCode, down.stderr).toBe(0);
    const resumed = project.spawn('resume');
    const drainedAt = await waitFor('the resumed writer\'s change of workers', () => project.events().filter((e) => e.event === 'workers_changed')[1]);
    expect(drainedAt).toMatchObject({ workers: 1, roster: ['worker-1'] });
    expect((drainedAt.drained as string[]).sort()).toEqual(['worker-2', 'worker-3']);

    const again = await project.team('scale', '2');
    expect(again.exitCode, again.stderr).toBe(0);
    const result = await resumed.result;
    expect(result.exitCode, result.stderr).toBe(0);

    const events = project.events();
    const changes = events.filter((e) => e.event === 'workers_changed');
    expect(changes.map((e) => e.added)).toEqual([['worker-3'], [], ['worker-4']]);
    // After the drain, no attempt starts on a drained worker.
    const after = spawnedOn(project).filter((e) => e.file > drainedAt.file).map((e) => e.worker);
    expect(after.filter((w) => w === 'worker-2' || w === 'worker-3')).toEqual([]);
    expect(spawnedOn(project).some((e) => e.worker === 'worker-3')).toBe(true);
    expect(ledgerProblems(project.ledger(), events, project.runId(), ['plan', ...TASKS, 'verify-1'])).toEqual([]);
    expect(logProblems(events)).toEqual([]);
    expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
  });

  it('refuses to scale a run that has ended, and a number out of range (exit 2)', { timeout: 30_000 }, async () => {
    const ended = await project.team('scale', '4');
    expect(ended.exitCode).toBe(2);
    expect(ended.stderr).toContain(`run ${project.runId()} has ended (completed): there are no workers to scale`);
    const zero = await project.team('scale', '0');
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toContain('N must be a whole number of workers from 1 to 20, not "0"');
  });
});
