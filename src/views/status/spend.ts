// What status, watch and wait show of spend and rate (issue 29): spend against the budget (a warning
// from 80%), and each agent under a rate limit: "throttled: claude 2 of 4 lanes, next try in 40 s".
import { raiseCommand, spentParts } from '../../rules/budget-hint.js';
import { describeSpend, describeThrottle, type SpendView } from '../../log/fold/spend.js';

// The lines, with the back-offs' countdown as of `now`; `countdown` false leaves it out (plain lines printed once).
export function spendLines(spend: SpendView, now: number, countdown = true): string[] {
  const lines: string[] = [];
  if (spend.budget) {
    const share = Math.floor((spend.share ?? 0) * 100);
    const note = spend.exceeded ? ` — spent: no attempt starts until ${raiseCommand(spentParts(spend.budget, spend.spentUsd, spend.spentTokens))} raises it` : spend.warning ? ` — warning: ${share}% of the budget spent` : '';
    lines.push(`budget: ${describeSpend(spend)} (${share}%)${note}`);
  }
  const throttled = countdown ? describeThrottle(spend, now) : describeThrottle({ ...spend, throttled: spend.throttled.map((t) => ({ ...t, waiting: false })) }, now);
  return [...lines, ...throttled];
}
