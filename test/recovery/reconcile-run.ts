// Shared steps of the reconcile tests: a run killed while one attempt runs, and what its end must show.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ledgerProblems, logProblems, replayOf } from '../helpers/recovery-checks.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import type { RecoveryProject } from '../helpers/recovery-project.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitForEvent } from '../helpers/wait-event.js';

export type Handle = { pid: number; pidStart: number; pgid: number };

// A tmux shim that waits 2 s before releasing a new pane (fixtures/slow-go-tmux/tmux).
export const SLOW_GO_TMUX = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'slow-go-tmux');

// Every task of the one-task scenarios.
export const ONE_TASK_RUN = ['plan', 't1', 'verify-1'];

// Starts a run and kills its orchestrator right after `task` a1's worker is recorded; returns the worker's handle.
export async function killWhileRunning(project: RecoveryProject, task: string, tmux = false): Promise<Handle> {
  const orchestrator = project.spawn('1:executor', 'reconcile after a crash', '--agent', 'sim', ...(tmux ? ['--tmux'] : []));
  const spawned = await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === task && e.attempt === 1, { stopIf: ended(orchestrator) });
  await killOrchestrator(orchestrator);
  return spawned.handle as Handle;
}

// [attempt, status] of each task_finished of a task, in the order written.
export function finishes(project: RecoveryProject, task: string): Array<[unknown, unknown]> {
  return project.events().filter((e) => e.event === 'task_finished' && e.task_id === task).map((e) => [e.attempt, e.status]);
}

// The attempts of a task that did their work, from the sim's ledger.
export function ledgerOf(project: RecoveryProject, task: string): number[] {
  return project.ledger().filter((line) => line.task === task).map((line) => line.attempt);
}

// The run ended completed, nothing done twice, nothing left running, and its log replays to `done`.
export async function expectCleanCompletion(project: RecoveryProject, tasks = ONE_TASK_RUN): Promise<void> {
  const events = project.events();
  expect(ledgerProblems(project.ledger(), events, project.runId(), tasks)).toEqual([]);
  expect(logProblems(events)).toEqual([]);
  expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
  expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
}
