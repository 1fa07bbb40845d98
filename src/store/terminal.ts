// One terminal record per attempt: an attempt ends once, and a second task_finished is never trusted.
import type { NewEvent, TeamEvent } from '../log/schema.js';
import { EXIT, TeamError } from '../sys/errors.js';
import type { TerminalConflict } from './types.js';

// A step that would give an attempt a second terminal record; nothing of the step was written.
export class TerminalConflictError extends TeamError {
  constructor(runId: string, task: string, attempt: number) {
    super(`run ${runId}: task ${task} attempt ${attempt} already has its terminal record (task_finished); a second one is refused and nothing of this step was written`, EXIT.failed);
  }
}

// One attempt of one task.
export interface AttemptKey {
  task: string;
  attempt: number;
}

// The attempts a step ends, in order.
export function endedBy(records: NewEvent[]): AttemptKey[] {
  return records.flatMap((r) => (r.event === 'task_finished' ? [{ task: r.task_id, attempt: r.attempt }] : []));
}

// Throws when the step ends an attempt twice or one that `hasEnded` says has its record already.
export function refuseSecondTerminal(runId: string, records: NewEvent[], hasEnded: (key: AttemptKey) => boolean): void {
  const seen = new Set<string>();
  for (const key of endedBy(records)) {
    const id = `${key.task}#${key.attempt}`;
    if (seen.has(id) || hasEnded(key)) throw new TerminalConflictError(runId, key.task, key.attempt);
    seen.add(id);
  }
}

// Attempts with more than one terminal record among the events, in the order first ended.
export function findConflicts(events: Array<TeamEvent & { file: string }>): TerminalConflict[] {
  const ends = new Map<string, TerminalConflict>();
  for (const event of events) {
    if (event.event !== 'task_finished') continue;
    const id = `${event.task_id}#${event.attempt}`;
    const found = ends.get(id) ?? { task: event.task_id, attempt: event.attempt, files: [] };
    found.files.push(event.file);
    ends.set(id, found);
  }
  return [...ends.values()].filter((c) => c.files.length > 1);
}
