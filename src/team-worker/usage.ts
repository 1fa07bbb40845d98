// An attempt's usage as its CLI's output shows it, for `usage` reports: the session id (which the
// watch tells as soon as it appears, src/attempt/execute.ts), and at the end the session id, cost
// and tokens, as the orchestrator records them in attempt_usage events.
import type { AgentReport } from '../../workers/types.js';

// What a usage report says: attempt_usage's fields.
export interface UsageBody {
  session_id?: string;
  cost_usd?: number;
  tokens?: { input: number; output: number; cached?: number };
}

// The usage of an ended attempt from its CLI's report, or undefined when it shows none.
export function usageOf(report: AgentReport): UsageBody | undefined {
  if (report.costUsd === undefined && report.tokens === undefined && report.sessionId === undefined) return undefined;
  return {
    ...(report.sessionId ? { session_id: report.sessionId } : {}),
    ...(report.costUsd !== undefined ? { cost_usd: report.costUsd } : {}),
    ...(report.tokens ? { tokens: report.tokens } : {}),
  };
}
