// What a running attempt spent so far, read from its CLI's output as it streams (issue 29), and
// whether that is over the attempt's own cap (agents.<name>.maxBudgetUsd) where the CLI has no flag
// for one. Shared by the orchestrator's watchdog (spend-watch.ts) and a team worker's (src/team-worker/spend.ts).
import { statSync } from 'node:fs';
import type { AgentAdapter, AgentConfig, SpendSoFar } from '../../workers/types.js';
import { readBoundedOutput } from './output.js';

// How often the output is read again once it reported spend: a read parses up to 4 MB of it.
const SPEND_EVERY_MS = 3_000;

// One look's findings: the spend when it changed since the last look, and why the attempt must stop.
export interface SpendSeen {
  changed?: SpendSoFar;
  over?: string;
}

export class SpendReader {
  private size = -1;
  private last = '';
  private readAt = 0;

  constructor(
    private readonly adapter: AgentAdapter,
    /** The agent's name in the config, and its config (its cap). */
    private readonly agentName: string,
    private readonly agent: AgentConfig,
    private readonly outputFile: string,
  ) {}

  // One look at the output when it grew (at most every SPEND_EVERY_MS once it showed spend).
  look(): SpendSeen {
    if (!this.adapter.spendSoFar) return {};
    const size = sizeOf(this.outputFile);
    if (size === this.size || (this.last !== '' && Date.now() - this.readAt < SPEND_EVERY_MS)) return {};
    this.size = size;
    this.readAt = Date.now();
    const spend = plausibleSpend(this.adapter.spendSoFar(readBoundedOutput(this.outputFile)));
    if (!spend) return {};
    const text = JSON.stringify(spend);
    const changed = text !== this.last ? spend : undefined;
    this.last = text;
    const cap = this.agent.maxBudgetUsd;
    if (cap === undefined || this.adapter.facts?.capsSpend === true || (spend.costUsd ?? 0) <= cap) return { ...(changed && { changed }) };
    return { ...(changed && { changed }), over: `attempt cap: spent $${spend.costUsd!.toFixed(4)}, over agents.${this.agentName}.maxBudgetUsd ($${cap}); stopped` };
  }
}

// A CLI's numbers (or a worker's report of them) as the log takes them: a cost or a count that is not
// a finite amount of zero or more is left out.
export function plausibleSpend(spend: { costUsd?: unknown; tokens?: { input?: unknown; output?: unknown; cached?: unknown } } | undefined): SpendSoFar | undefined {
  if (!spend) return undefined;
  const amount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  const costUsd = amount(spend.costUsd) ? spend.costUsd : undefined;
  const cached = spend.tokens?.cached;
  const tokens = spend.tokens && amount(spend.tokens.input) && amount(spend.tokens.output) ? { input: spend.tokens.input, output: spend.tokens.output, ...(amount(cached) && cached <= spend.tokens.input && cached > 0 && { cached }) } : undefined;
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
