// What a running attempt spent so far (spend-read.ts), logged as attempt_spend when it changes and
// checked against the run's budget; over the attempt's own cap, the watchdog stops it.
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, AgentConfig, SpendSoFar } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { checkBudgetSoon, type BudgetParts } from '../session/budget.js';
import type { TeamEvent } from '../log/schema.js';
import { SpendReader } from './spend-read.js';

export class SpendWatch {
  private readonly reader: SpendReader;

  constructor(
    private readonly run: BudgetParts,
    private readonly input: AttemptInput,
    adapter: AgentAdapter,
    agent: AgentConfig,
    dir: string,
  ) {
    this.reader = new SpendReader(adapter, input.agent, agent, join(dir, OUTPUT_FILE));
  }

  // One look at the output; returns why the attempt must stop (over its own cap), if it must.
  look(): string | undefined {
    const { changed, over } = this.reader.look();
    if (changed) recordSpend(this.run, this.input, changed);
    return over;
  }
}

// The attempt's spend so far in the log (with the worker's report it came from, on the PostgreSQL
// store), then the budget checked; returns the event appended.
export function recordSpend(run: BudgetParts, attempt: { taskId: string; attempt: number; stage: string; agent: string }, spend: SpendSoFar, report?: number): TeamEvent {
  const { taskId, attempt: n, stage, agent } = attempt;
  const event = run.events.append({ event: 'attempt_spend', task_id: taskId, attempt: n, stage, agent, ...(spend.costUsd !== undefined && { cost_usd: spend.costUsd }), ...(spend.tokens && { tokens: spend.tokens }), ...(report !== undefined && { report }) });
  checkBudgetSoon(run);
  return event;
}
