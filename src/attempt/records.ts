// What every way an attempt ends shares: where its files are, and its task_finished record.
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { RunSession } from '../run/session.js';

export interface AttemptFiles {
  dir: string;
  promptFile: string;
  resultFile: string;
}

// Where an attempt's files live.
export function attemptFiles(session: RunSession, taskId: string, attempt: number): AttemptFiles {
  const dir = join(session.paths.attemptsDir, taskId, `a${attempt}`);
  return { dir, promptFile: join(dir, 'prompt.md'), resultFile: join(dir, 'result.json') };
}

// Records the attempt as interrupted: it did not finish, and it will not be started again.
export function finishInterrupted(session: RunSession, input: AttemptInput, evidence: string): void {
  session.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, status: 'interrupted', evidence }, `■ ${input.taskId} a${input.attempt} interrupted: ${evidence}`);
  session.events.commit(taskFinished(session, input, 'interrupted', evidence, [], ''));
}

// The seed's task_finished event; `retryable: false` marks a failure no retry can fix.
export function taskFinished(session: RunSession, input: AttemptInput, status: 'completed' | 'failed' | 'interrupted', evidence: string, artifacts: string[], next: string, retryable?: false) {
  return {
    event: 'task_finished' as const,
    task_id: input.taskId,
    stage: input.stage,
    agent: input.agent,
    attempt: input.attempt,
    status,
    session: session.sessionIds.session,
    parent_session: session.sessionIds.parent_session,
    inputs: input.handoffs.map((h) => h.path),
    artifacts,
    evidence,
    next,
    ...(retryable === false && { retryable }),
  };
}
