// What a report says was spent, for the budget while an attempt works (issue 29).
import type { AgentReport, SpendSoFar } from '../types.js';

// The report's cost and tokens; undefined when it names neither.
export function spendOf(report: AgentReport): SpendSoFar | undefined {
  if (report.costUsd === undefined && report.tokens === undefined) return undefined;
  return { ...(report.costUsd !== undefined && { costUsd: report.costUsd }), ...(report.tokens && { tokens: report.tokens }) };
}
