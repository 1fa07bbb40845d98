import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject } from '../helpers/cancel-run.js';

afterEach(cleanUpCancelProjects);

describe('team cancel delivery', () => {
  it('asks a live orchestrator to cancel even when the project config broke after the run started, and returns once run_cancelled is written', async () => {
    const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs: 500 });
    const run = project.start('2:executor', 'cancel me while the config is broken');
    const runId = await project.waitForWorkers(['polite', 'stubborn']);
    // The live path reads the lock and the run's start and end records only: the config plays no part.
    project.write('.team/config.json', '{ "team": ');
    const cancel = await project.run('cancel');
    expect(cancel.stderr).toContain(`asked orchestrator pid ${run.pid} to cancel run ${runId}`);
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    expect(cancel.exitCode).toBe(0);
    // By the time `team cancel` returned, the end record was in the log.
    expect(project.events(runId).map((e) => e.event)).toContain('run_cancelled');
    expect((await run.exited).exitCode).toBe(3);
    const requested = project.events(runId).filter((e) => e.event === 'cancel_requested');
    expect(requested.map((e) => [e.by, e.force])).toEqual([['team cancel', false]]);
  }, 120_000);

  it('with --force stops a worker that ignores signals without waiting for the grace period', async () => {
    const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs: 60_000 });
    const run = project.start('2:executor', 'force-cancel me');
    const runId = await project.waitForWorkers(['polite', 'stubborn']);
    const cancel = await project.run('cancel', '--force');
    expect(cancel.exitCode).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
    const stubborn = project.events(runId).find((e) => e.event === 'task_finished' && e.task_id === 'stubborn');
    expect(stubborn?.status).toBe('interrupted');
    expect(project.events(runId).at(-1)?.event).toBe('run_cancelled');
  }, 120_000);
});
