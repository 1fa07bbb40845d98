import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, spanBetween } from '../helpers/cancel-run.js';
import { expectCleanCancel } from './clean-end.js';
import { waitFor } from '../helpers/wait-event.js';

// A worker that stops on SIGINT and one that ignores SIGINT and SIGTERM, both headless.
const TASKS = ['polite', 'stubborn'];
// Beyond the grace period: SIGTERM to SIGKILL (2 s), the handoff, the last record, a loaded machine.
const SLACK_MS = 6_000;

afterEach(cleanUpCancelProjects);

describe('team run signals', () => {
  it('SIGINT cancels the run gracefully: it exits 3 once the grace period is over', async () => {
    const graceMs = 2_000;
    const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs });
    const run = project.start('2:executor', 'interrupt me');
    const runId = await project.waitForWorkers(TASKS);
    process.kill(run.pid, 'SIGINT');
    const exit = await run.exited;
    expect(exit.exitCode).toBe(3);
    expect(exit.stderr).toContain('cancel requested by SIGINT');
    await expectCleanCancel(project, runId, TASKS);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'cancel_requested')).toEqual([expect.objectContaining({ by: 'SIGINT', force: false })]);

    const spanMs = spanBetween(events, 'cancel_requested', 'run_cancelled');
    console.info(`SIGINT with grace ${graceMs} ms: ${spanMs} ms from request to run_cancelled`);
    expect(spanMs).toBeGreaterThanOrEqual(graceMs);
    expect(spanMs).toBeLessThan(graceMs + SLACK_MS);
  }, 120_000);

  it('a second SIGINT skips the rest of the grace period, even with a worker that ignores signals', async () => {
    const graceMs = 20_000;
    const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs });
    const run = project.start('2:executor', 'interrupt me twice');
    const runId = await project.waitForWorkers(TASKS);
    process.kill(run.pid, 'SIGINT');
    await waitFor('the first cancel_requested', () => project.events(runId).some((e) => e.event === 'cancel_requested'), 30_000);
    process.kill(run.pid, 'SIGINT');
    const exit = await run.exited;
    expect(exit.exitCode).toBe(3);
    expect(exit.stderr).toContain('forced: no grace period');
    await expectCleanCancel(project, runId, TASKS);
    const events = project.events(runId);
    const requests = events.filter((e) => e.event === 'cancel_requested');
    expect(requests.map((e) => [e.by, e.force])).toEqual([['SIGINT', false], ['SIGINT', true]]);

    const spanMs = spanBetween(events, 'cancel_requested', 'run_cancelled');
    console.info(`SIGINT twice with grace ${graceMs} ms: ${spanMs} ms from the first request to run_cancelled`);
    expect(spanMs).toBeLessThan(graceMs / 2);
  }, 120_000);

  it('SIGHUP (the terminal closed) cancels the run through the same path', async () => {
    const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 1_000 });
    const run = project.start('1:executor', 'close my terminal');
    const runId = await project.waitForWorkers(['t1']);
    process.kill(run.pid, 'SIGHUP');
    expect((await run.exited).exitCode).toBe(3);
    await expectCleanCancel(project, runId, ['t1']);
    expect(project.events(runId).find((e) => e.event === 'cancel_requested')).toMatchObject({ by: 'SIGHUP' });
  }, 120_000);

  it('`team cancel --force` (SIGTERM with a forced request) during a graceful cancel skips the rest of the grace period', async () => {
    const graceMs = 20_000;
    const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs });
    const run = project.start('2:executor', 'cancel me, then insist');
    const runId = await project.waitForWorkers(TASKS);
    const first = project.run('cancel');
    await waitFor('the first cancel_requested', () => project.events(runId).some((e) => e.event === 'cancel_requested'), 30_000);
    const forced = await project.run('cancel', '--force');
    expect(forced.exitCode).toBe(0);
    expect((await first).exitCode).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
    await expectCleanCancel(project, runId, TASKS);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'cancel_requested').map((e) => e.force)).toEqual([false, true]);

    const forcedAt = Date.parse(events.filter((e) => e.event === 'cancel_requested')[1]!.at);
    const endedAt = Date.parse(events.find((e) => e.event === 'run_cancelled')!.at);
    const spanMs = spanBetween(events, 'cancel_requested', 'run_cancelled');
    console.info(`team cancel, then --force, with grace ${graceMs} ms: ${spanMs} ms from the first request to run_cancelled, ${endedAt - forcedAt} ms from the forced one`);
    expect(spanMs).toBeLessThan(graceMs);
    expect(endedAt - forcedAt).toBeLessThan(graceMs / 2);
  }, 120_000);
});
