// How a run's attempts ended, counted apart: one that a rate limit or the budget interrupted did not
// fail, and the summaries, status, watch and the report say so in the same words.
import type { TaskView } from './types.js';

export interface AttemptCounts {
  attempts: number;
  failed: number;
  /** Interrupted by a rate limit: tried again after a back-off. */
  rateLimited: number;
  /** Interrupted otherwise: the budget, a cancel, a restart with no result. */
  interrupted: number;
}

// The counts of every attempt of `tasks`.
export function countAttempts(tasks: ReadonlyArray<Pick<TaskView, 'attempts'>>): AttemptCounts {
  const counts: AttemptCounts = { attempts: 0, failed: 0, rateLimited: 0, interrupted: 0 };
  for (const task of tasks) {
    for (const a of task.attempts) {
      counts.attempts += 1;
      if (a.status === 'failed') counts.failed += 1;
      else if (a.status === 'interrupted' && a.rateLimited) counts.rateLimited += 1;
      else if (a.status === 'interrupted') counts.interrupted += 1;
    }
  }
  return counts;
}

// The plan's tasks (of the iteration under way) among a run's tasks, which hold the stages' own too
// (planner, analyst, verifier): what the end summary's "5 of 5 tasks completed" counts.
export function plannedTaskCount(view: { tasks: ReadonlyArray<{ id: string }>; current: ReadonlySet<string> }): number {
  return view.current.size ? view.tasks.filter((t) => view.current.has(t.id)).length : view.tasks.length;
}

// "12 attempts (8 rate-limited, 0 failed)": the interrupted named only when there are any.
export function describeAttemptCounts(counts: AttemptCounts): string {
  const parts = [
    ...(counts.rateLimited > 0 ? [`${counts.rateLimited} rate-limited`] : []),
    ...(counts.interrupted > 0 ? [`${counts.interrupted} interrupted`] : []),
    `${counts.failed} failed`,
  ];
  return `${counts.attempts} ${counts.attempts === 1 ? 'attempt' : 'attempts'} (${parts.join(', ')})`;
}
