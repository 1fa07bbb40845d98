// The run's budget (issue 29), checked whenever spend joins the log: once the spend reaches it,
// budget_exceeded goes to the machine, which starts nothing more and stops the run for a decision.
import { spentParts } from '../rules/budget-hint.js';
import { describeSpend, spendOf } from '../log/fold/spend.js';
import type { EventLog } from './event-log.js';
import type { Progress } from './progress.js';

// What the check uses of a run: its log (and fold) and its progress.
export interface BudgetParts {
  readonly events: EventLog;
  readonly progress: Progress;
}

// Logs whose budget_exceeded this orchestrator wrote and no budget_raised followed: written once.
const held = new WeakSet<EventLog>();
// Logs that warned of 80% spent already.
const warned = new WeakSet<EventLog>();

// Checks the budget once what was appended so far is in the log (the fold holds durable events only).
export function checkBudgetSoon(run: BudgetParts): void {
  run.events.afterFlush(() => checkBudget(run));
}

// Spend at or past the budget: budget_exceeded, with what was spent. At 80%: a warning.
export function checkBudget(run: BudgetParts): void {
  const view = spendOf(run.events.fold.state);
  if (!view.budget || view.share === undefined || view.exceeded || held.has(run.events)) return;
  if (view.share >= 1) {
    held.add(run.events);
    const reason = `budget spent: ${describeSpend(view)}`;
    run.progress.emit({ type: 'budget.exceeded', reason }, `■ ${reason}: no new attempt starts${view.budget.onExceed === 'stop' ? '; running attempts are stopped' : '; running attempts finish'}`);
    run.events.commit({ event: 'budget_exceeded', reason, stop_running: view.budget.onExceed === 'stop', spent_usd: Math.round(view.spentUsd * 1e6) / 1e6, spent_tokens: view.spentTokens, parts: spentParts(view.budget, view.spentUsd, view.spentTokens) });
    return;
  }
  if (view.warning && !warned.has(run.events)) {
    warned.add(run.events);
    run.progress.emit({ type: 'budget.warning', share: view.share }, `! ${Math.floor(view.share * 100)}% of the budget spent: ${describeSpend(view)}`);
  }
}

// A raised budget: the check may fire again.
export function budgetRaised(events: EventLog): void {
  held.delete(events);
  warned.delete(events);
}
