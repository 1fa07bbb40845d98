// A run's clock, read from its log: when it started, and the moment its time stops (its last event
// once it ended, now while it goes), so that every view tells one duration that never grows after the end.
import { parseLogTime } from '../time.js';
import type { RunView } from './fold.js';

// The statuses of a run that has ended: nothing more happens to it until a resume.
export const ENDED_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'stopped']);

// Milliseconds since the epoch at which the run started.
export function runStartMs(view: Pick<RunView, 'run'>): number {
  return parseLogTime(view.run.created_at);
}

// The moment the run's clock stands at: its end record (else its last event) when it has ended,
// `now` otherwise.
export function runClockMs(view: Pick<RunView, 'status' | 'lastAt' | 'endedAt'>, now = Date.now()): number {
  const end = view.endedAt ?? view.lastAt;
  return ENDED_STATUSES.has(view.status) && end !== undefined ? parseLogTime(end) : now;
}

// The run's duration in seconds: start to its last event once ended, start to now while it goes.
export function runSeconds(view: Pick<RunView, 'run' | 'status' | 'lastAt' | 'endedAt'>, now = Date.now()): number {
  return Math.max(0, (runClockMs(view, now) - runStartMs(view)) / 1000);
}

// An attempt's duration in seconds, the same in the live lines, `team status` and the report:
// start to finish, or start to `now` while it runs; undefined before it started.
export function attemptSeconds(attempt: { startedAt?: string; finishedAt?: string }, now = Date.now()): number | undefined {
  if (!attempt.startedAt) return undefined;
  const end = attempt.finishedAt ? parseLogTime(attempt.finishedAt) : now;
  return Math.max(0, (end - parseLogTime(attempt.startedAt)) / 1000);
}
