// The pipeline's steps for a run's budget (issue 29): once spent, no attempt starts (running ones
// are stopped, or let finish), and the run stops for a decision; a raised budget goes on.
import { indexTasks } from './task-index.js';
import * as steps from './steps.js';
import type { Step } from './steps.js';
import type { PipelineContext, PipelineEvent } from './types.js';

type ExceededEvent = Extract<PipelineEvent, { type: 'budget.exceeded' }>;
type QuotaEvent = Extract<PipelineEvent, { type: 'quota.reached' }>;
type FinishEvent = Extract<PipelineEvent, { type: 'task.finished' }>;

// The budget is spent: nothing new starts; with onExceed stop, running attempts are stopped.
export function holdForBudget(context: PipelineContext, event: ExceededEvent): Step {
  const running = event.stop_running ? context.taskIndex.running.map((id) => steps.attemptActorId(id, context.tasks[id]!.attempt)) : [];
  const stage = context.stageAttempt;
  if (event.stop_running && stage?.status === 'running') running.push(steps.attemptActorId(stage.id, stage.attempt));
  return { context: { budgetHold: event.reason, budgetParts: event.parts ?? [] }, stop: running };
}

// An agent's quota is spent: nothing new starts (running attempts end as they will: their CLI meets
// the same quota); the run stops for a decision once nothing runs. It names when the quota resets.
export function holdForQuota(event: QuotaEvent): Step {
  return { context: { budgetHold: `${event.agent}'s quota is spent${event.resets ? ` (resets ${event.resets})` : ''}: ${event.reason}`, budgetParts: [], quotaHold: true } };
}

// A single-agent stage's attempt the budget stopped: it waits, held, for a raised budget.
export function isBudgetStoppedStageFinish(context: PipelineContext, event: FinishEvent): boolean {
  return Boolean(context.budgetHold) && steps.isCurrentStageAttempt(context, event) && event.status !== 'completed';
}

// The stage's attempt is held for the budget (and no back-off holds it): a raised budget starts it again.
export function isStageHeldForBudget(context: PipelineContext): boolean {
  return Boolean(context.budgetHold) && context.stageAttempt?.status === 'pending';
}

// Stopped for the budget in a single-agent stage: its attempt held, nothing running.
export function isBudgetStopped(context: PipelineContext): boolean {
  return isStageHeldForBudget(context) && context.taskIndex.counts.running === 0;
}

// Held for the budget with nothing running: the run stops for a decision.
export function budgetStopsRun(context: PipelineContext): boolean {
  return Boolean(context.budgetHold) && context.taskIndex.counts.running === 0;
}

// The budget raised: attempts start again; those the budget stopped are tried again.
export function raiseBudget(context: PipelineContext): Step {
  const tasks = Object.fromEntries(Object.entries(context.tasks).map(([id, t]) => [id, t.status === 'interrupted' ? { ...t, status: 'pending' as const } : t]));
  return { context: { budgetHold: '', quotaHold: false, tasks, taskIndex: indexTasks(tasks) } };
}

export function releaseBudget(): Step {
  return { context: { budgetHold: '', quotaHold: false } };
}
