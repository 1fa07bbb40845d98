// The report's cost and tokens, by task, stage and agent: the run view's own numbers (those `team
// status` prints), with a row, marked unreported, for each task, stage and agent that ran an
// attempt whose agent reported no usage (the view keeps only what an attempt_usage event said).
import type { RunView, UsageTotals } from '../../log/fold/fold.js';
import { spendLines } from '../status/spend.js';

// One row of a usage table; `reported` is false when no attempt_usage event counts towards it.
export interface UsageRow extends UsageTotals {
  key: string;
  title?: string;
  reported: boolean;
}

export interface ReportUsage {
  byTask: UsageRow[];
  byStage: UsageRow[];
  byAgent: UsageRow[];
  run: UsageTotals;
  /** Spend against the budget and the agents under a rate limit at the end (issue 29), as lines. */
  spend: string[];
}

// The tables of a run's view.
export function usageTables(view: RunView): ReportUsage {
  const attempts = view.tasks.flatMap((t) => t.attempts).sort((x, y) => (x.startedAt ?? '').localeCompare(y.startedAt ?? ''));
  const byTask = view.tasks.map((task) => {
    const reported = task.attempts.some((a) => a.sessionId !== undefined || a.costUsd > 0 || a.tokens.input + a.tokens.output > 0);
    const sum = task.attempts.reduce((acc, a) => ({ costUsd: acc.costUsd + a.costUsd, tokens: { input: acc.tokens.input + a.tokens.input, output: acc.tokens.output + a.tokens.output } }), zero());
    return { key: task.id, ...(task.title !== undefined && { title: task.title }), ...sum, reported };
  });
  return {
    byTask,
    byStage: rows(view.usage.byStage, attempts.map((a) => a.stage)),
    byAgent: rows(view.usage.byAgent, attempts.map((a) => a.agent)),
    run: view.usage.run,
    spend: spendLines(view.spend, 0, false),
  };
}

// A row per key, in the order they first ran: the view's totals, or zero where nothing was reported.
function rows(totals: Record<string, UsageTotals>, ran: string[]): UsageRow[] {
  const keys = [...new Set([...ran.filter((k) => k !== ''), ...Object.keys(totals)])];
  return keys.map((key) => (totals[key] ? { key, ...totals[key], reported: true } : { key, ...zero(), reported: false }));
}

function zero(): UsageTotals {
  return { costUsd: 0, tokens: { input: 0, output: 0 } };
}
