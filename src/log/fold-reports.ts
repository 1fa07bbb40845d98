// What a run's log holds of its team workers' reports (PostgreSQL store): the attempts taken, the
// attempts that stalled (keys `task#attempt`) and the usage reports read (by their seq). The run's
// writer folds each report into the log once (src/remote/worker-news.ts).
import type { TeamEvent } from './schema.js';

export interface WorkerReports {
  taken: Set<string>;
  stalled: Set<string>;
  usage: Set<number>;
}

// None yet.
export function newWorkerReports(): WorkerReports {
  return { taken: new Set(), stalled: new Set(), usage: new Set() };
}

// Folds one report fact (any other event changes nothing): the fold's, and the writer's as it appends.
export function applyReportFact(reports: WorkerReports, event: TeamEvent): void {
  if (event.event === 'attempt_taken') reports.taken.add(`${event.task_id}#${event.attempt}`);
  else if (event.event === 'attempt_stalled') reports.stalled.add(`${event.task_id}#${event.attempt}`);
  else if (event.event === 'attempt_usage' && event.report !== undefined) reports.usage.add(event.report);
}
