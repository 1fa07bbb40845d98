// `--budget-usd X` and `--budget-tokens N` (issue 29): on `team` and `team ralph` they set the run's
// budget; on `team resume` they raise it.
import { UsageError } from '../../sys/errors.js';
import { optionalInt, optionalString, type ParsedArgs } from './args.js';

// The budget flags' values; undefined for those not given.
export function budgetFlags(args: ParsedArgs, command: string): { usd?: number; tokens?: number } {
  const text = optionalString(args, 'budget-usd');
  let usd: number | undefined;
  if (text !== undefined) {
    usd = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !Number.isFinite(usd) || usd <= 0) throw new UsageError(`${command}: --budget-usd must be a positive amount of dollars such as 5 or 2.50, not "${text}"`);
  }
  const tokens = optionalInt(args, 'budget-tokens', command, 1, Number.MAX_SAFE_INTEGER);
  return { ...(usd !== undefined && { usd }), ...(tokens !== undefined && { tokens }) };
}
