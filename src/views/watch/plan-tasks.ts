// The plan's tasks as the live view counts them, from the run's log: the tasks of the iteration
// under way (the plan's and its fix loops'), as the machine holds them. (Titles: the fold's.)
import type { TeamEvent } from '../../log/schema.js';
import type { TaskView } from '../../log/fold.js';

export interface PlanTasks {
  /** The ids of the tasks the iteration under way holds; a new ralph iteration starts an empty list. */
  current: Set<string>;
}

// The current tasks the events assign (tasks_assigned, task_assigned), in the order written.
export function planTasks(events: readonly TeamEvent[]): PlanTasks {
  let current = new Set<string>();
  for (const e of events) {
    if (e.event === 'iteration_started') current = new Set();
    if (e.event === 'task_assigned') current.add(e.task_id);
    if (e.event === 'tasks_assigned') for (const t of e.tasks) current.add(t.task_id);
  }
  return { current };
}

// How many of the current tasks have completed, of how many.
export function doneOf(plan: PlanTasks, tasks: readonly TaskView[]): { done: number; total: number } {
  const done = tasks.filter((t) => plan.current.has(t.id) && t.status === 'completed').length;
  return { done, total: plan.current.size };
}
