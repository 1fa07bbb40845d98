// What a running attempt spent so far, read from its CLI's output as it streams (issue 29): logged
// as attempt_spend when it changes, checked against the run's budget, and against the attempt's own
// cap (agents.<name>.maxBudgetUsd) where the CLI has no flag for one.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, AgentConfig, SpendSoFar } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { checkBudgetSoon, type BudgetParts } from '../run/budget.js';
import { readBoundedOutput } from './output.js';

// CLIs that cap an attempt's spend themselves (claude --max-budget-usd).
const CAPPED_BY_CLI = new Set(['claude']);
// How often the output is read again once it reported spend: a read parses up to 4 MB of it.
const SPEND_EVERY_MS = 3_000;

export class SpendWatch {
  private size = -1;
  private last = '';
  private readAt = 0;

  constructor(
    private readonly run: BudgetParts,
    private readonly input: AttemptInput,
    private readonly adapter: AgentAdapter,
    private readonly agent: AgentConfig,
    private readonly dir: string,
  ) {}

  // One look at the output when it grew; returns why the attempt must stop (over its own cap), if it must.
  look(): string | undefined {
    if (!this.adapter.spendSoFar) return undefined;
    const size = sizeOf(join(this.dir, OUTPUT_FILE));
    if (size === this.size || (this.last !== '' && Date.now() - this.readAt < SPEND_EVERY_MS)) return undefined;
    this.size = size;
    this.readAt = Date.now();
    const spend = plausible(this.adapter.spendSoFar(readBoundedOutput(join(this.dir, OUTPUT_FILE))));
    if (!spend) return undefined;
    const text = JSON.stringify(spend);
    if (text !== this.last) {
      this.last = text;
      this.record(spend);
    }
    const cap = this.agent.maxBudgetUsd;
    if (cap === undefined || CAPPED_BY_CLI.has(this.adapter.name) || (spend.costUsd ?? 0) <= cap) return undefined;
    return `attempt cap: spent $${spend.costUsd!.toFixed(4)}, over agents.${this.input.agent}.maxBudgetUsd ($${cap}); stopped`;
  }

  private record(spend: SpendSoFar): void {
    const { taskId, attempt, stage, agent } = this.input;
    this.run.events.append({ event: 'attempt_spend', task_id: taskId, attempt, stage, agent, ...(spend.costUsd !== undefined && { cost_usd: spend.costUsd }), ...(spend.tokens && { tokens: spend.tokens }) });
    checkBudgetSoon(this.run);
  }
}

// A CLI's numbers as the log takes them: a cost or a count that is not a finite amount of zero or more is left out.
function plausible(spend: SpendSoFar | undefined): SpendSoFar | undefined {
  if (!spend) return undefined;
  const amount = (n: number | undefined) => n !== undefined && Number.isFinite(n) && n >= 0;
  const costUsd = amount(spend.costUsd) ? spend.costUsd : undefined;
  const tokens = spend.tokens && amount(spend.tokens.input) && amount(spend.tokens.output) ? spend.tokens : undefined;
  if (costUsd === undefined && tokens === undefined) return undefined;
  return { ...(costUsd !== undefined && { costUsd }), ...(tokens && { tokens }) };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}
