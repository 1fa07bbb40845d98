// Replay determinism: folding a run's log through the machine reproduces the run, and a log whose
// records were altered is refused by `team resume` without changing anything.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logProblems, replayOf } from '../helpers/recovery-checks.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended, killOrchestrator, killWorkerGroup, snapshotEvents } from '../helpers/recovery-wait.js';
import { waitForEvent } from '../helpers/wait-event.js';

// A two-task run killed while t1 runs, its worker ended too: a log that stops mid-way.
async function killedRun(): Promise<RecoveryProject> {
  const project = makeRecoveryProject('slow-then-fast');
  const orchestrator = project.spawn('2:executor', 'replay a crashed run', '--agent', 'sim');
  const spawned = await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
  await killOrchestrator(orchestrator);
  await killWorkerGroup(project, (spawned.handle as { pgid: number }).pgid);
  return project;
}

function eventFile(project: RecoveryProject, pattern: RegExp): string {
  const name = project.eventNames().find((n) => pattern.test(n));
  if (!name) throw new Error(`no event file matches ${pattern}`);
  return join(project.eventsDir(), name);
}

function editEvent(project: RecoveryProject, pattern: RegExp, change: Record<string, unknown> | ((event: Record<string, unknown>) => Record<string, unknown>)): void {
  const file = eventFile(project, pattern);
  const event = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify(typeof change === 'function' ? change(event) : { ...event, ...change })}\n`);
}

// The plan's record of its tasks, with t2 given to another worker.
function t2ToOtherWorker(event: Record<string, unknown>): Record<string, unknown> {
  const tasks = event.tasks as Array<{ task_id: string; worker: string }>;
  if (!tasks.some((t) => t.task_id === 't2')) throw new Error('the plan assigned no t2');
  return { ...event, tasks: tasks.map((t) => (t.task_id === 't2' ? { ...t, worker: t.worker === 'worker-1' ? 'worker-2' : 'worker-1' } : t)) };
}

// Every file of the run outside events/ (but the lock, which a refused take-over may clear), with its size.
function listRun(project: RecoveryProject): string[] {
  return readdirSync(project.runDir(), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'lock.json' && !entry.parentPath.startsWith(project.eventsDir()))
    .map((entry) => `${relative(project.runDir(), join(entry.parentPath, entry.name))} ${statSync(join(entry.parentPath, entry.name)).size}`)
    .sort();
}

const ALTERATIONS: Array<[string, (project: RecoveryProject) => void]> = [
  ['a task_started whose attempt was edited', (p) => editEvent(p, /-task_started-t1-a1-/, { attempt: 2 })],
  ['a tasks_assigned whose worker of t2 was edited', (p) => editEvent(p, /-tasks_assigned-run-a0-/, t2ToOtherWorker)],
  ['a deleted record (the stage_completed of team-plan)', (p) => rmSync(eventFile(p, /-stage_completed-run-a0-/))],
];

describe('runtime/replay', () => {
  afterEach(removeRecoveryProjects);

  it('reproduces a completed run from its log', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('quick');
    const result = await project.team('1:executor', 'replay a completed run', '--agent', 'sim');

    expect(result.exitCode, result.stderr).toBe(0);
    expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
    expect(logProblems(project.events())).toEqual([]);
  });

  it('reproduces a failed run from its log', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('verify-always-fails');
    const result = await project.team('1:executor', 'replay a failed run', '--agent', 'sim', '--max-fix-loops', '0');

    expect(result.exitCode, result.stderr).toBe(1);
    expect(await replayOf(project)).toEqual({ value: 'failed', status: 'done', pending: [] });
    expect(logProblems(project.events())).toEqual([]);
  });

  it('reproduces a cancelled run from its log', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const orchestrator = project.spawn('1:executor', 'replay a cancelled run', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });

    const cancel = await project.team('cancel', '--force');
    const result = await orchestrator.result;

    expect(cancel.exitCode, cancel.stderr).toBe(0);
    expect(result.exitCode, result.stderr).toBe(3);
    expect(await replayOf(project)).toEqual({ value: 'cancelled', status: 'done', pending: [] });
    expect(logProblems(project.events())).toEqual([]);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
  });

  it('replays a log cut short by kill -9 to a running state, its in-flight records all written', { timeout: 240_000 }, async () => {
    const project = await killedRun();

    const replay = await replayOf(project);

    expect(replay).toEqual({ value: { exec: 'working' }, status: 'active', pending: [] });
  });

  it.each(ALTERATIONS)('refuses to resume a log with %s, exits 1 with "determinism violation" and changes nothing', { timeout: 240_000 }, async (_what, alter) => {
    const project = await killedRun();
    alter(project);
    const before = { events: snapshotEvents(project), others: listRun(project) };

    const result = await project.team('resume');

    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('determinism violation');
    expect(snapshotEvents(project)).toEqual(before.events);
    expect(listRun(project)).toEqual(before.others);
    await expect(replayOf(project)).rejects.toThrow(/determinism violation/);
  });
});
