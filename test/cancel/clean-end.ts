// What every cancel must leave, checked from outside: the end recorded once, every attempt terminal,
// no process of the run's groups and no pane of its server alive, what the user owns untouched.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CancelProject } from '../helpers/cancel-run.js';
import { isRunning, liveInGroups } from '../helpers/proc-groups.js';
import { runServerName, type TmuxSandbox } from '../helpers/tmux-sandbox.js';

export interface Bystanders {
  sandbox: TmuxSandbox;
  /** The pane pid of the user's own tmux session in the sandbox. */
  userPane: number;
  /** An unrelated process of the user's. */
  unrelatedPid: number;
}

// `interrupted`: the exec tasks every cancel of these tests stops.
export async function expectCleanCancel(project: CancelProject, runId: string, tasks: string[], bystanders?: Bystanders): Promise<void> {
  const events = project.events(runId);
  expect(events.at(-1)?.event).toBe('run_cancelled');
  expect(events.filter((e) => e.event === 'run_cancelled')).toHaveLength(1);
  // The handoff of the cancelled stage comes right before the end, and is on disk.
  const handoff = events.at(-2);
  expect(handoff).toMatchObject({ event: 'handoff_written', stage: 'team-cancel' });
  expect(existsSync(join(project.dir, String(handoff?.path)))).toBe(true);
  const status = await project.statusJson();
  expect(status.status).toBe('cancelled');
  expect(status.attention.uncertain).toEqual([]);
  const attempts = status.tasks.flatMap((t) => t.attempts.map((a) => ({ task: t.id, status: a.status })));
  expect(attempts.filter((a) => a.status === 'running')).toEqual([]);
  for (const task of tasks) expect(attempts).toContainEqual({ task, status: 'interrupted' });

  const handles = project.handles(runId);
  expect(liveInGroups(handles.map((h) => h.pgid))).toEqual([]);
  if (!bystanders) return;
  const { sandbox, userPane, unrelatedPid } = bystanders;
  const server = runServerName(runId);
  expect((await sandbox.tmux(server, 'list-panes', '-a')).ok).toBe(false);
  expect(existsSync(sandbox.socketPath(server))).toBe(false);
  expect((await sandbox.tmux(sandbox.userServer, 'has-session', '-t', 'mine')).ok).toBe(true);
  expect(isRunning(userPane)).toBe(true);
  expect(isRunning(unrelatedPid)).toBe(true);
}
