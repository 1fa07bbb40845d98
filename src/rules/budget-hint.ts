// What raises a spent budget: the flag of each part of it that ran out (a token budget is raised with
// --budget-tokens, a dollar one with --budget-usd), named by the run's stop, status and watch.

export type BudgetPart = 'usd' | 'tokens';

// The parts of a budget that the spend reached.
export function spentParts(budget: { usd?: number; tokens?: number } | undefined, spentUsd: number, spentTokens: number): BudgetPart[] {
  if (!budget) return [];
  const parts: BudgetPart[] = [];
  if (budget.usd !== undefined && spentUsd >= budget.usd) parts.push('usd');
  if (budget.tokens !== undefined && spentTokens >= budget.tokens) parts.push('tokens');
  return parts;
}

// "`team resume --budget-tokens N`" (with --run ID when given): the command that goes on; no part
// named (an older log): either flag.
export function raiseCommand(parts: readonly BudgetPart[] | undefined, runId?: string): string {
  const resume = `team resume${runId ? ` --run ${runId}` : ''}`;
  if (!parts?.length) return `\`${resume} --budget-usd X\` (or --budget-tokens N)`;
  return `\`${resume} ${parts.map((p) => (p === 'usd' ? '--budget-usd X' : '--budget-tokens N')).join(' ')}\``;
}
