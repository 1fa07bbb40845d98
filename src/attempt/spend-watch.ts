// What a running attempt spent so far (spend-read.ts, as the watch reads it: execute.ts), logged as
// attempt_spend when it changes and checked against the run's budget.
import type { SpendSoFar } from '../../workers/types.js';
import { checkBudgetSoon, type BudgetParts } from '../session/budget.js';
import type { TeamEvent } from '../log/schema.js';
import { spendEvent, type AttemptWho } from './news.js';

// The attempt's spend so far in the log (with the worker's report it came from, on the PostgreSQL
// store), then the budget checked; returns the event appended.
export function recordSpend(run: BudgetParts, who: AttemptWho, spend: SpendSoFar, report?: number): TeamEvent {
  const event = run.events.append({ ...spendEvent(who, spend), ...(report !== undefined && { report }) });
  checkBudgetSoon(run);
  return event;
}
