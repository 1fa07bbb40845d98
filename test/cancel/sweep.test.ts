import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, spanBetween } from '../helpers/cancel-run.js';
import { isRunning, liveInGroups } from '../helpers/proc-groups.js';
import { makeTmuxSandbox, runServerName, type TmuxSandbox } from '../helpers/tmux-sandbox.js';
import { expectCleanCancel } from './clean-end.js';
import { waitFor } from '../helpers/wait-event.js';

const TASKS = ['polite', 'stubborn', 'parent', 'pane-polite', 'pane-stubborn'];
// As for a live cancel: the grace, SIGTERM to SIGKILL, the handoff and a busy machine.
const SLACK_MS = 6_000;

let sandbox: TmuxSandbox;
let bystander: ResultPromise;
const strangers: ResultPromise[] = [];

beforeEach(() => {
  sandbox = makeTmuxSandbox();
  bystander = execa('sleep', ['600'], { reject: false });
});

afterEach(async () => {
  await cleanUpCancelProjects();
  await sandbox.cleanup();
  for (const subprocess of [bystander, ...strangers.splice(0)]) {
    subprocess.kill('SIGKILL');
    await subprocess;
  }
});

describe('team cancel sweep (the orchestrator is gone)', () => {
  it('takes the run over, stops the workers still alive and records run_cancelled', async () => {
    const graceMs = 2_000;
    const project = makeCancelProject({ scenario: 'cancel-five-workers.json', graceMs, env: sandbox.env });
    const userPane = await sandbox.startUserSession();
    const run = project.start('5:executor', 'the orchestrator of this run is killed');
    const runId = await project.waitForWorkers(TASKS);
    process.kill(run.pid, 'SIGKILL');
    expect((await run.exited).exitCode).not.toBe(0);

    // The workers outlive their orchestrator: the sweep has something to do.
    const handles = project.handles(runId).filter((h) => h.pgid > 0);
    const orphans = new Set(liveInGroups(handles.map((h) => h.pgid)).map((p) => p.pgid));
    expect(orphans.size).toBe(TASKS.length);
    expect((await sandbox.tmux(runServerName(runId), 'list-panes', '-a')).ok).toBe(true);
    const before = project.events(runId).length;

    const cancel = await project.run('cancel');
    expect(cancel.exitCode).toBe(0);
    expect(cancel.stderr).toContain('no live orchestrator');
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    // The sweep adopts the recorded workers; it never starts one, least of all a second worker for an attempt.
    expect.soft(project.events(runId).slice(before).filter((e) => e.event === 'attempt_spawned').map((e) => e.task_id)).toEqual([]);
    expect.soft(cancel.stderr).not.toContain('▶');
    await expectCleanCancel(project, runId, TASKS, { sandbox, userPane, unrelatedPid: bystander.pid! });

    const events = project.events(runId).slice(before);
    expect(events[0]).toMatchObject({ event: 'cancel_requested', force: false });
    expect(events.map((e) => e.event)).toContain('handoff_written');
    const spanMs = spanBetween(events, 'cancel_requested', 'run_cancelled');
    console.info(`sweep with grace ${graceMs} ms: ${spanMs} ms from request to run_cancelled`);
    expect(spanMs).toBeGreaterThanOrEqual(graceMs);
    expect(spanMs).toBeLessThan(graceMs + SLACK_MS);
  }, 120_000);

  it('never signals a process that holds the pid of a worker that died with its orchestrator', async () => {
    const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 1_000 });
    const run = project.start('1:executor', 'the whole machine went down');
    const runId = await project.waitForWorkers(['t1']);
    process.kill(run.pid, 'SIGKILL');
    await run.exited;
    // The worker dies too (a reboot, the OOM killer), and its pid goes to a process of someone else's
    // that leads its own group, as a daemon or a shell job does.
    const spawned = project.events(runId).find((e) => e.event === 'attempt_spawned' && e.task_id === 't1')!;
    const handle = spawned.handle as { pid: number; pidStart: number; pgid: number };
    process.kill(-handle.pgid, 'SIGKILL');
    await waitFor('the worker to die', () => liveInGroups([handle.pgid]).length === 0, 10_000);
    const stranger = execa('sleep', ['600'], { detached: true, reject: false });
    strangers.push(stranger);
    // Pid numbers cannot be chosen: the recorded handle is pointed at the stranger instead, keeping the
    // worker's start time, which is exactly what a recycled pid looks like from the log.
    const file = join(project.eventsDir(runId), spawned.file);
    const event = JSON.parse(readFileSync(file, 'utf8')) as { handle: typeof handle };
    event.handle = { ...event.handle, pid: stranger.pid!, pgid: stranger.pid! };
    writeFileSync(`${file}.tmp`, JSON.stringify(event));
    renameSync(`${file}.tmp`, file);

    const cancel = await project.run('cancel');
    expect(cancel.exitCode).toBe(0);
    expect((await project.statusJson()).status).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (!isRunning(stranger.pid!)) expect((await stranger).signal, 'the signal that ended the stranger').toBeUndefined();
    expect(isRunning(stranger.pid!)).toBe(true);
  }, 120_000);
});
