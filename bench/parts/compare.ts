// One measured operation beside its baseline: the row every benchmark reports.
export interface Comparison {
  name: string;
  /** The operation under test, in `unit` (milliseconds unless said otherwise). */
  ms: number;
  /** The plain baseline doing the same work (or the budget), in the same unit, measured in the same run. */
  baselineMs: number;
  /** The ratio ms / baselineMs must stay at or under this; none for a row that only feeds a growth row. */
  target?: number;
  /** What was measured, e.g. "5000 events, fsync". */
  detail: string;
  /** The unit of ms and baselineMs when it is not milliseconds, e.g. "MB" or "ms/event". */
  unit?: string;
  /** Why a row has no target, when it does not only feed a growth row. */
  untargeted?: string;
}

// A line such as `store write  5000 events, fsync  812.3 ms vs 701.0 ms  1.16x  (target 1.5x)  PASS`.
export function formatComparison(row: Comparison): string {
  const ratio = row.ms / row.baselineMs;
  const unit = row.unit ?? 'ms';
  const digits = row.ms < 1 ? 4 : 1;
  return [
    row.name.padEnd(14),
    row.detail.padEnd(34),
    `${row.ms.toFixed(digits).padStart(9)} ${unit} vs ${row.baselineMs.toFixed(digits).padStart(9)} ${unit}`,
    `${ratio.toFixed(2)}x`.padStart(7),
    ...(row.target === undefined ? [`(no target: ${row.untargeted ?? 'a size for the growth row'})`] : [`(target ${row.target}x)`, ratio <= row.target ? 'PASS' : 'OVER']),
  ].join('  ');
}

// The header of the markdown table `npm run bench -- --markdown` prints (docs/benchmarks.md).
export const MARKDOWN_HEADER = '| row | measured | figure | baseline | ratio | target | |\n|---|---|---:|---:|---:|---|---|';

// A markdown table row of the same comparison, e.g. `| store write | 5000 events, fsync | 812.3 ms | 701.0 ms | 1.16x | ≤ 1.5x | PASS |`.
export function markdownComparison(row: Comparison): string {
  const ratio = row.ms / row.baselineMs;
  const unit = row.unit ?? 'ms';
  const digits = row.ms < 1 ? 4 : 1;
  const cells = [
    row.name,
    row.detail,
    `${row.ms.toFixed(digits)} ${unit}`,
    `${row.baselineMs.toFixed(digits)} ${unit}`,
    `${ratio.toFixed(2)}x`,
    ...(row.target === undefined ? [`no target: ${row.untargeted ?? 'a size for the growth row'}`, ''] : [`≤ ${row.target}x`, ratio <= row.target ? 'PASS' : 'OVER']),
  ];
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

// The median of some timings: steadier than the mean on a shared machine.
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// Sizes from an environment variable such as "1000,10000" (BENCH_RESUME_EVENTS), else the defaults.
export function sizesFrom(name: string, defaults: number[]): number[] {
  const text = process.env[name];
  if (!text) return defaults;
  const sizes = text.split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`${name}: expected sizes such as "1000,10000", not "${text}"`);
  return sizes;
}

// The growth row: time per unit of work at the largest size against the smallest (linear growth is 1x).
export function growthRow(name: string, what: string, perUnit: Array<{ size: number; ms: number }>, target: number): Comparison {
  const first = perUnit[0]!;
  const last = perUnit.at(-1)!;
  const shown = perUnit.map((p) => `${p.size}: ${(p.ms / p.size).toFixed(3)}`).join(', ');
  return { name, detail: `ms/${what} at ${shown}`, ms: last.ms / last.size, baselineMs: first.ms / first.size, target, unit: `ms/${what}` };
}
