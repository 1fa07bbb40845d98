// Reading a team worker's reports in tests: what each says, by the log's own event names, and the
// agent a worker said it started.
import type { Report } from '../../src/store/attempt-queue.js';

// A report's name: the event's for an event report (attempt_taken, attempt_usage, ...), else its kind
// (output-tail, finished).
export function reportName(report: Pick<Report, 'kind' | 'body'>): string {
  return report.kind === 'event' ? String(report.body.event) : report.kind;
}

// The agent process a worker's attempt_taken report names (its own process group), or undefined.
export function takenAgent(report: Pick<Report, 'kind' | 'body'>): { pid: number; pidStart: number; pgid: number } | undefined {
  if (reportName(report) !== 'attempt_taken') return undefined;
  const { pid, pid_start: pidStart } = report.body as { pid?: unknown; pid_start?: unknown };
  return typeof pid === 'number' && pid > 0 && typeof pidStart === 'number' ? { pid, pidStart, pgid: pid } : undefined;
}
