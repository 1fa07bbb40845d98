// What every way an attempt ends shares: where its files are, and its task_finished record.
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import { attemptFilesIn, type AttemptFiles } from './prepare/launch.js';
import type { RunPaths } from '../log/write.js';
import type { EventLog } from '../session/event-log.js';
import type { Progress } from '../session/progress.js';

// What an attempt's records use of a run: its folder, log, progress and session ids.
export interface RecordParts {
  readonly paths: RunPaths;
  readonly events: EventLog;
  readonly progress: Progress;
  readonly sessionIds: { session: string; parent_session: string };
}

export type { AttemptFiles };

// Where an attempt's files live.
export function attemptFiles(run: RecordParts, taskId: string, attempt: number): AttemptFiles {
  return attemptFilesIn(join(run.paths.attemptsDir, taskId, `a${attempt}`));
}

// Records the attempt as interrupted: it did not finish, and it will not be started again.
export function finishInterrupted(run: RecordParts, input: AttemptInput, evidence: string): void {
  run.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, status: 'interrupted', evidence }, `■ ${input.taskId} a${input.attempt} interrupted: ${evidence}`);
  run.events.commit(taskFinished(run, input, 'interrupted', evidence, [], ''));
}

// The seed's task_finished event; `retryable: false` marks a failure no retry can fix.
export function taskFinished(run: RecordParts, input: AttemptInput, status: 'completed' | 'failed' | 'interrupted', evidence: string, artifacts: string[], next: string, retryable?: false) {
  return {
    event: 'task_finished' as const,
    task_id: input.taskId,
    stage: input.stage,
    agent: input.agent,
    attempt: input.attempt,
    status,
    session: run.sessionIds.session,
    parent_session: run.sessionIds.parent_session,
    inputs: input.handoffs.map((h) => h.path),
    artifacts,
    evidence,
    next,
    ...(retryable === false && { retryable }),
  };
}
