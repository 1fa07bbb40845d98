// Waiting for what a run writes, and ending a worker's process group of a run the test started.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listProcs } from './recovery-procs.js';
import { waitFor } from './wait-event.js';
import type { Orchestrator, RecoveryProject } from './recovery-project.js';

// For waitForEvent's stopIf: the orchestrator that should write the event ended first.
export function ended(orchestrator: Orchestrator): () => string | undefined {
  return () => (orchestrator.exited ? `the orchestrator (pid ${orchestrator.pid}) ended` : undefined);
}

// Kills the orchestrator we started with SIGKILL and waits until it is gone.
export async function killOrchestrator(orchestrator: Orchestrator): Promise<void> {
  orchestrator.kill();
  await orchestrator.result;
}

// SIGKILL to a worker's process group recorded by a run this test started (checked: a member runs
// in the run's attempt folder or carries its TEAM_RUN_ID), then waits until the group is empty.
export async function killWorkerGroup(project: RecoveryProject, pgid: number): Promise<void> {
  const members = () => listProcs().filter((p) => p.pgid === pgid);
  if (members().length === 0) return;
  const ours = members().some((p) => p.cmdline.includes(project.runDir()) || environOf(p.pid).includes(`TEAM_RUN_ID=${project.runId()}`));
  if (!ours) throw new Error(`process group ${pgid} does not belong to run ${project.runId()}`);
  process.kill(-pgid, 'SIGKILL');
  await waitFor(`process group ${pgid} to end`, () => members().length === 0, 10_000);
}

// True while the recorded worker's process runs (pid and start time as recorded).
export function isAlive(handle: { pid: number; pidStart: number }): boolean {
  try {
    const stat = readFileSync(`/proc/${handle.pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[0] !== 'Z' && Number(rest[19]) === handle.pidStart;
  } catch {
    return false;
  }
}

// An attempt's folder in the latest run.
export function attemptDir(project: RecoveryProject, task: string, attempt: number): string {
  return join(project.runDir(), 'attempts', task, `a${attempt}`);
}

// Names and contents of every file in the events folder, to compare before and after a command.
export function snapshotEvents(project: RecoveryProject): Record<string, string> {
  const dir = project.eventsDir();
  return Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}
