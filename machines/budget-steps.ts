// The pipeline's steps for a run's budget (issue 29): once spent, no attempt starts (running ones
// are stopped, or let finish), and the run stops for a decision; a raised budget goes on.
import { indexTasks } from './task-index.js';
import * as steps from './steps.js';
import type { Step } from './steps.js';
import type { PipelineContext, PipelineEvent } from './types.js';

type ExceededEvent = Extract<PipelineEvent, { type: 'budget.exceeded' }>;

// The budget is spent: nothing new starts; with onExceed stop, running exec and fix attempts are stopped.
export function holdForBudget(context: PipelineContext, event: ExceededEvent): Step {
  const running = event.stop_running ? context.taskIndex.running.map((id) => steps.attemptActorId(id, context.tasks[id]!.attempt)) : [];
  return { context: { budgetHold: event.reason }, stop: running };
}

// Held for the budget with nothing running: the run stops for a decision.
export function budgetStopsRun(context: PipelineContext): boolean {
  return Boolean(context.budgetHold) && context.taskIndex.counts.running === 0;
}

// The budget raised: attempts start again; those the budget stopped are tried again.
export function raiseBudget(context: PipelineContext): Step {
  const tasks = Object.fromEntries(Object.entries(context.tasks).map(([id, t]) => [id, t.status === 'interrupted' ? { ...t, status: 'pending' as const } : t]));
  return { context: { budgetHold: '', tasks, taskIndex: indexTasks(tasks) } };
}

export function releaseBudget(): Step {
  return { context: { budgetHold: '' } };
}
