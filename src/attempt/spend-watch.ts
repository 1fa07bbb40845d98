// What a running attempt spent so far (spend-read.ts, as the watch reads it: execute.ts), logged as
// attempt_spend when it changes and checked against the run's budget.
import type { SpendSoFar } from '../../workers/types.js';
import { checkBudgetSoon, type BudgetParts } from '../session/budget.js';
import type { TeamEvent } from '../log/schema.js';

// The attempt's spend so far in the log (with the worker's report it came from, on the PostgreSQL
// store), then the budget checked; returns the event appended.
export function recordSpend(run: BudgetParts, attempt: { taskId: string; attempt: number; stage: string; agent: string }, spend: SpendSoFar, report?: number): TeamEvent {
  const { taskId, attempt: n, stage, agent } = attempt;
  const event = run.events.append({ event: 'attempt_spend', task_id: taskId, attempt: n, stage, agent, ...(spend.costUsd !== undefined && { cost_usd: spend.costUsd }), ...(spend.tokens && { tokens: spend.tokens }), ...(report !== undefined && { report }) });
  checkBudgetSoon(run);
  return event;
}
