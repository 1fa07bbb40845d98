// One measured operation beside its baseline: the row every benchmark reports.
export interface Comparison {
  name: string;
  /** Milliseconds for the operation under test. */
  ms: number;
  /** Milliseconds for the plain baseline doing the same work, measured in the same run. */
  baselineMs: number;
  /** The ratio ms / baselineMs must stay at or under this. */
  target: number;
  /** What was measured, e.g. "5000 events, fsync". */
  detail: string;
}

// A line such as `store write  5000 events, fsync  812.3 ms vs 701.0 ms  1.16x  (target 1.5x)  PASS`.
export function formatComparison(row: Comparison): string {
  const ratio = row.ms / row.baselineMs;
  return [
    row.name.padEnd(14),
    row.detail.padEnd(34),
    `${row.ms.toFixed(1).padStart(9)} ms vs ${row.baselineMs.toFixed(1).padStart(9)} ms`,
    `${ratio.toFixed(2)}x`.padStart(7),
    `(target ${row.target}x)`,
    ratio <= row.target ? 'PASS' : 'OVER',
  ].join('  ');
}

// The median of some timings: steadier than the mean on a shared machine.
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
