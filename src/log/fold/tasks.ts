// The tasks, attempts and iterations of a run's fold: how event.ts finds or makes them; and what
// the log holds of its team workers' reports (PostgreSQL store).
import type { AttemptView, FoldState, IterationView, TaskView, UsageTotals, WorkerReports } from './types.js';
import type { TeamEvent } from '../schema.js';

// The task of that id, made pending when new.
export function taskIn(tasks: Map<string, TaskView>, id: string): TaskView {
  let task = tasks.get(id);
  if (!task) tasks.set(id, (task = { id, status: 'pending', attempts: [], retries: [] }));
  return task;
}

// The attempt of that task and number, made running when new, its task's attempts kept in order.
export function attemptIn(tasks: Map<string, TaskView>, id: string, number: number, event: { stage?: string; agent?: string }): AttemptView {
  const task = taskIn(tasks, id);
  let attempt = task.attempts.find((a) => a.attempt === number);
  if (!attempt) {
    attempt = newAttempt(number, event.stage ?? '', event.agent ?? '');
    task.attempts.push(attempt);
    task.attempts.sort((a, b) => a.attempt - b.attempt);
  }
  return attempt;
}

// A task enters the graph, on a worker, among the current iteration's tasks; one defined here (not
// a fix task, which stands for a defect) counts among its iteration's own.
export function assignTask(st: FoldState, id: string, worker: string, defined: boolean): void {
  // A task new to the fold is in no iteration's list yet: only a known one is looked for there.
  const known = st.tasks.has(id);
  taskIn(st.tasks, id);
  st.current.add(id);
  st.assigned.set(id, worker);
  const iteration = iterationIn(st.iterations, st.pipeline.iteration);
  if (defined && !/(^|\.)fix-\d+-/.test(id) && !(known && iteration.tasks.includes(id))) iteration.tasks.push(id);
}

// The iteration numbered k, made running when new.
export function iterationIn(iterations: IterationView[], k: number): IterationView {
  let found = iterations.find((it) => it.iteration === k);
  if (!found) iterations.push((found = { iteration: k, tasks: [], fixLoops: 0, outcome: 'running', reasons: [] }));
  return found;
}

function newAttempt(attempt: number, stage: string, agent: string): AttemptView {
  return { attempt, stage, agent, status: 'running', inputs: [], artifacts: [], evidence: '', next: '', uncertain: false, stalled: false, costUsd: 0, tokens: { input: 0, output: 0 } };
}

// The key of an attempt in the fold's maps: `task#attempt`.
export function key(task: string, attempt: number): string {
  return `${task}#${attempt}`;
}

// No cost, no tokens.
export function emptyTotals(): UsageTotals {
  return { costUsd: 0, tokens: { input: 0, output: 0 } };
}

// Two token counts added.
export function addTokens(a: { input: number; output: number; cached?: number }, b: { input: number; output: number; cached?: number }): { input: number; output: number; cached?: number } {
  const cached = (a.cached ?? 0) + (b.cached ?? 0);
  return { input: a.input + b.input, output: a.output + b.output, ...(cached > 0 && { cached }) };
}

// No report yet.
export function newWorkerReports(): WorkerReports {
  return { taken: new Set(), stalled: new Set(), seqs: new Set() };
}

// Folds one report fact (any other event changes nothing): the fold's, and the writer's as it appends.
export function applyReportFact(reports: WorkerReports, event: TeamEvent): void {
  if (event.event === 'attempt_taken') reports.taken.add(`${event.task_id}#${event.attempt}`);
  else if (event.event === 'attempt_stalled') reports.stalled.add(`${event.task_id}#${event.attempt}`);
  else if ((event.event === 'attempt_usage' || event.event === 'attempt_spend' || event.event === 'attempt_retrying') && event.report !== undefined) reports.seqs.add(event.report);
}
