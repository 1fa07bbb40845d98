// The fold's part of spend and rate (issue 29): the run's budget, what running attempts reported
// spending so far, each agent's lanes and back-off. Readers (status, watch, wait, report, the
// runtime's budget check) take spendOf() of it.
import type { Budget, TeamEvent } from '../schema.js';
import { freshThrottle, retrying, succeeded, throttled, type AgentThrottle } from '../../rules/throttle.js';
import { parseLogTime } from '../time.js';

// Cost and tokens (types.ts's UsageTotals, named here so that the two files do not import each other).
interface UsageTotals {
  costUsd: number;
  tokens: { input: number; output: number; cached?: number };
}

export interface SpendState {
  budget?: Budget;
  /** Why no attempt may start (budget_exceeded), until a budget_raised. */
  exceeded?: string;
  /** What each running attempt (`task#attempt`) reported so far; its attempt_usage replaces it. */
  live: Record<string, UsageTotals>;
  /** A spent quota holds the run (quota_reached), until a quota_cleared: whose, and when it resets. */
  quota?: { agent: string; resets?: string };
  throttle: Record<string, AgentThrottle>;
  workers: number;
}

// The share of the budget at which status, watch and wait warn.
export const BUDGET_WARNING_SHARE = 0.8;

export interface SpendView {
  budget?: Budget;
  spentUsd: number;
  spentTokens: number;
  /** The larger of the spent shares of the budget's parts (0..), when there is a budget. */
  share?: number;
  warning: boolean;
  exceeded?: string;
  /** Agents under a rate limit now: lanes of workers, and when the back-off ends (ms since the epoch; 0: none). */
  throttled: Array<{ agent: string; lanes: number; of: number; until: number; waiting: boolean }>;
}

export function newSpend(): SpendState {
  return { live: {}, throttle: {}, workers: 0 };
}

// Folds one event's spend and rate facts (every event passes; most say nothing of them).
export function applySpendFact(st: { spend?: SpendState }, event: TeamEvent): void {
  const spend = (st.spend ??= newSpend());
  switch (event.event) {
    case 'run_started':
      spend.workers = event.workers;
      if (event.budget) spend.budget = event.budget;
      break;
    case 'attempt_spend':
      spend.live[`${event.task_id}#${event.attempt}`] = { costUsd: event.cost_usd ?? 0, tokens: event.tokens ?? { input: 0, output: 0 } };
      break;
    case 'attempt_usage':
      if (event.cost_usd !== undefined || event.tokens !== undefined) delete spend.live[`${event.task_id}#${event.attempt}`];
      break;
    case 'quota_reached':
      spend.quota = { agent: event.agent, ...(event.resets !== undefined && { resets: event.resets }) };
      break;
    case 'quota_cleared':
      spend.quota = undefined;
      break;
    case 'budget_exceeded':
      spend.exceeded = event.reason;
      break;
    case 'budget_raised':
      spend.exceeded = undefined;
      if (spend.budget) spend.budget = { ...spend.budget, ...(event.usd !== undefined && { usd: event.usd }), ...(event.tokens !== undefined && { tokens: event.tokens }) };
      else spend.budget = { onExceed: 'stop', ...(event.usd !== undefined && { usd: event.usd }), ...(event.tokens !== undefined && { tokens: event.tokens }) };
      break;
    case 'attempt_throttled':
    case 'attempt_retrying': {
      const current = spend.throttle[event.agent] ?? freshThrottle(spend.workers);
      spend.throttle[event.agent] = (event.event === 'attempt_retrying' ? retrying : throttled)(current, { at: parseLogTime(event.at), jitter: event.jitter, ...(event.retry_after_ms !== undefined && { retryAfterMs: event.retry_after_ms }) });
      break;
    }
    case 'backoff_ended': {
      const current = spend.throttle[event.agent];
      if (current) spend.throttle[event.agent] = { ...current, waiting: false };
      break;
    }
    case 'task_finished': {
      const current = spend.throttle[event.agent];
      if (event.status === 'completed' && current) spend.throttle[event.agent] = succeeded(current, spend.workers);
      break;
    }
    default:
      break;
  }
}

// What the run spent (finished attempts' totals and running ones' reports) against its budget.
export function spendOf(st: { spend?: SpendState; usage: { run: UsageTotals } }): SpendView {
  const spend = st.spend ?? newSpend();
  let spentUsd = st.usage.run.costUsd;
  let spentTokens = st.usage.run.tokens.input + st.usage.run.tokens.output;
  for (const live of Object.values(spend.live)) {
    spentUsd += live.costUsd;
    spentTokens += live.tokens.input + live.tokens.output;
  }
  const { budget } = spend;
  const shares = budget ? [budget.usd === undefined ? 0 : spentUsd / budget.usd, budget.tokens === undefined ? 0 : spentTokens / budget.tokens] : [];
  const share = budget ? Math.max(...shares) : undefined;
  const throttledNow = Object.entries(spend.throttle)
    .filter(([, t]) => t.waiting || t.lanes < spend.workers)
    .map(([agent, t]) => ({ agent, lanes: t.lanes, of: spend.workers, until: t.waiting ? t.until : 0, waiting: t.waiting }));
  return { ...(budget && { budget }), spentUsd, spentTokens, ...(share !== undefined && { share }), warning: share !== undefined && share >= BUDGET_WARNING_SHARE, ...(spend.exceeded && { exceeded: spend.exceeded }), throttled: throttledNow };
}

// "budget spent: $1.02 of $1.00" / "412000 of 400000 tokens": the part that ran out first.
export function describeSpend(view: SpendView): string {
  const { budget } = view;
  if (!budget) return `spent $${view.spentUsd.toFixed(2)}, ${view.spentTokens} tokens`;
  const parts: string[] = [];
  if (budget.usd !== undefined) parts.push(`$${view.spentUsd.toFixed(2)} of $${budget.usd.toFixed(2)}`);
  if (budget.tokens !== undefined) parts.push(`${view.spentTokens} of ${budget.tokens} tokens`);
  return parts.join(', ');
}

// Why a raised budget would not do: it is not above what the run spent (it would stop again at once).
export function lowBudgetProblem(raise: { usd?: number; tokens?: number }, spend: SpendView): string | undefined {
  if (raise.usd !== undefined && raise.usd <= spend.spentUsd) return `--budget-usd ${raise.usd} is not above what the run spent (${describeSpend(spend)}): give a larger budget`;
  if (raise.tokens !== undefined && raise.tokens <= spend.spentTokens) return `--budget-tokens ${raise.tokens} is not above what the run spent (${describeSpend(spend)}): give a larger budget`;
  return undefined;
}

// "throttled: claude 2 of 4 lanes, next try in 40 s" for each agent under a rate limit.
export function describeThrottle(view: SpendView, now: number): string[] {
  return view.throttled.map((t) => `throttled: ${t.agent} ${t.lanes} of ${t.of} lanes${t.waiting ? `, next try in ${Math.max(0, Math.ceil((t.until - now) / 1000))} s` : ''}`);
}
