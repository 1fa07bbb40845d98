import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, spanBetween } from '../helpers/cancel-run.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../helpers/tmux-sandbox.js';
import { expectCleanCancel } from './clean-end.js';

// One worker of each kind: polite, signal-ignoring, with children, and two in tmux panes.
const TASKS = ['polite', 'stubborn', 'parent', 'pane-polite', 'pane-stubborn'];
// Beyond the grace period: SIGTERM to SIGKILL (2-3 s), the handoff, the last record, a loaded machine.
// Counted from the orchestrator's cancel_requested record, so the start-up of `team cancel` itself
// (seconds on a busy machine) is not taken for slowness of the shutdown.
const SLACK_MS = 6_000;

let sandbox: TmuxSandbox;
let bystander: ResultPromise;

beforeEach(() => {
  sandbox = makeTmuxSandbox();
  bystander = execa('sleep', ['600'], { reject: false });
});

afterEach(async () => {
  await cleanUpCancelProjects();
  await sandbox.cleanup();
  bystander.kill('SIGKILL');
  await bystander;
});

// Starts the five-worker run, waits until every worker is up, then runs `team cancel <flags>`.
async function cancelMidExec(graceMs: number, flags: string[]) {
  const project = makeCancelProject({ scenario: 'cancel-five-workers.json', graceMs, env: sandbox.env });
  const userPane = await sandbox.startUserSession();
  const run = project.start('5:executor', 'cancel me in the middle of team-exec');
  const runId = await project.waitForWorkers(TASKS);
  const askedAt = Date.now();
  const cancel = await project.run('cancel', ...flags);
  const exit = await run.exited;
  return { project, runId, userPane, cancel, exit, wallMs: exit.endedAt - askedAt };
}

describe('team cancel', () => {
  it('stops all five kinds of worker of a live run after the grace period and leaves nothing of the run behind', async () => {
    const graceMs = 2_000;
    const { project, runId, userPane, cancel, exit, wallMs } = await cancelMidExec(graceMs, []);
    expect(cancel.exitCode).toBe(0);
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    expect(exit.exitCode).toBe(3);
    await expectCleanCancel(project, runId, TASKS, { sandbox, userPane, unrelatedPid: bystander.pid! });
    expect(project.handles(runId).filter((h) => h.backend === 'tmux')).toHaveLength(2);

    const spanMs = spanBetween(project.events(runId), 'cancel_requested', 'run_cancelled');
    console.info(`cancel with grace ${graceMs} ms: ${spanMs} ms from request to run_cancelled, ${wallMs} ms from \`team cancel\` to the run's exit`);
    expect(spanMs).toBeGreaterThanOrEqual(graceMs);
    expect(spanMs).toBeLessThan(graceMs + SLACK_MS);
  }, 120_000);

  it('with --force, skips the grace period and still leaves nothing behind', async () => {
    const graceMs = 20_000;
    const { project, runId, userPane, cancel, exit, wallMs } = await cancelMidExec(graceMs, ['--force']);
    expect(cancel.exitCode).toBe(0);
    expect(cancel.stderr).toContain('(forced)');
    expect(exit.exitCode).toBe(3);
    await expectCleanCancel(project, runId, TASKS, { sandbox, userPane, unrelatedPid: bystander.pid! });
    expect(project.handles(runId).filter((h) => h.backend === 'tmux')).toHaveLength(2);
    expect(project.events(runId).find((e) => e.event === 'cancel_requested')).toMatchObject({ force: true });

    const spanMs = spanBetween(project.events(runId), 'cancel_requested', 'run_cancelled');
    console.info(`cancel --force with grace ${graceMs} ms: ${spanMs} ms from request to run_cancelled, ${wallMs} ms from \`team cancel\` to the run's exit`);
    expect(spanMs).toBeLessThan(graceMs / 2);
    expect(wallMs).toBeLessThan(graceMs);
  }, 120_000);
});
