// The sim's usage report: a scenario's `usage` printed as one `sim: usage {...}` line on stdout,
// read back by the sim adapter as the attempt's cost and tokens (what a budget counts).
import { z } from 'zod';

export const USAGE_PREFIX = 'sim: usage ';

const usageLine = z.strictObject({
  cost_usd: z.number().min(0).max(1e6).optional(),
  tokens: z.strictObject({ input: z.int().min(0), output: z.int().min(0) }).optional(),
});

// The last usage line of the output, when there is a valid one: a malformed line reports nothing.
export function readSimUsage(output: string): { costUsd?: number; tokens?: { input: number; output: number } } {
  const line = output.split('\n').filter((l) => l.startsWith(USAGE_PREFIX)).at(-1);
  if (line === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(USAGE_PREFIX.length));
  } catch {
    return {};
  }
  const usage = usageLine.safeParse(parsed);
  if (!usage.success) return {};
  return { ...(usage.data.cost_usd !== undefined && { costUsd: usage.data.cost_usd }), ...(usage.data.tokens && { tokens: usage.data.tokens }) };
}
