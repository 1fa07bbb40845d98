// Records for the store tests: a run's fields, task and stage records, and a machine log cut into
// the steps the runtime appends (an input and the records it causes).
import type { NewEvent, TeamEvent } from '../../src/log/schema.js';
import { toMachineEvent } from '../../machines/inputs.js';
import type { NewRun, RunStore } from '../../src/store/types.js';

// run.json's fields of a small team run.
export const RUN_FIELDS: NewRun = { profile: 'team', stage: 'team-plan', status: 'running', session: '', parent_session: '', task: 'demo', workers: 1, agentType: 'executor', mode: 'team' };

// A task_finished record of the seed's shape.
export function finished(task: string, attempt: number, status: 'completed' | 'failed' | 'interrupted' = 'completed'): NewEvent {
  return { event: 'task_finished', task_id: task, stage: 'team-exec', agent: 'sim', attempt, status, session: '', parent_session: '', inputs: [], artifacts: [], evidence: `${task} a${attempt}`, next: '' };
}

// A stage_entered record.
export function entered(stage: string, iteration = 1, loop = 0): NewEvent {
  return { event: 'stage_entered', stage, iteration, loop };
}

// A log without its `at`, `run_id` and `file`, cut into steps: each input event starts one.
export function toSteps(log: TeamEvent[]): NewEvent[][] {
  const steps: NewEvent[][] = [];
  for (const event of log) {
    const { at: _at, run_id: _run, file: _file, ...record } = event as TeamEvent & { file?: string };
    if (steps.length === 0 || toMachineEvent(event)) steps.push([]);
    steps.at(-1)!.push(record as NewEvent);
  }
  return steps;
}

// Appends each step; returns what the store wrote.
export async function appendSteps(store: RunStore, runId: string, steps: NewEvent[][]): Promise<TeamEvent[]> {
  const written: TeamEvent[] = [];
  for (const step of steps) written.push(...(await store.append(runId, step)));
  return written;
}

// An event as read, without the name the store gave it.
export function withoutFile(event: TeamEvent & { file?: string }): TeamEvent {
  const { file: _file, ...rest } = event;
  return rest as TeamEvent;
}
