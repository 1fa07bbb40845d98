// A worker that started but was never recorded (the orchestrator died between spawn and record):
// found through the pid file its wrapper writes first, and verified by its command line.
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import { readPidStart } from '../sys/proc.js';
import type { WorkerHandle } from '../../workers/types.js';
import { findEscapees } from '../../workers/escapees.js';
import { OUTPUT_FILE, PID_FILE } from '../../workers/wrapper.js';
import type { AttemptFiles } from './records.js';
import type { EventLog } from '../session/event-log.js';
import type { WorkerRegistry } from '../session/registry.js';
import { TOOLS_FILE } from '../team-tools/context.js';

// A handle for the attempt's unrecorded worker, recorded now; undefined when it never started.
export function adoptUnrecorded(run: { readonly events: EventLog; readonly registry: WorkerRegistry }, input: AttemptInput, attemptDir: string): WorkerHandle | undefined {
  const pidFile = join(attemptDir, PID_FILE);
  if (!existsSync(pidFile)) return undefined;
  let pid: number;
  try {
    pid = Number((JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: unknown }).pid);
  } catch {
    return undefined;
  }
  const start = readPidStart(pid);
  // Alive and ours: its command line names this attempt's folder. Dead: a record with pid only.
  const ours = start !== undefined && readCmdline(pid).includes(attemptDir);
  const handle: WorkerHandle = { backend: 'process', pid, pidStart: ours ? start : -1, pgid: pid };
  run.registry.record(input.taskId, input.attempt, handle);
  run.events.append({ event: 'attempt_spawned', task_id: input.taskId, attempt: input.attempt, worker: input.worker, handle });
  return handle;
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

// Whether an attempt with no recorded worker may have run at all: anything in its folder but the
// prompt and the tools' context the orchestrator wrote (a pid or exit record, a result, output, a tmux pane's launch file:
// that pane may still wait for its go) or a live process carrying its marker. Without any, its
// task_started was the last thing that happened to it, and it had no side effect.
export function workerMayHaveStarted(runId: string, input: AttemptInput, files: AttemptFiles): boolean {
  if (existsSync(files.resultFile)) return true;
  for (const entry of entriesOf(files.dir)) {
    if (join(files.dir, entry.name) === files.promptFile || entry.name === TOOLS_FILE) continue;
    if (entry.name === OUTPUT_FILE && entry.isFile() && statSync(join(files.dir, entry.name)).size === 0) continue;
    return true;
  }
  return findEscapees({ runId, taskId: input.taskId, attempt: input.attempt, since: 0 }).length > 0;
}

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
