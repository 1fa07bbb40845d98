// The plan's tasks as the live view counts and names them, from the run's log: each task's title,
// and the tasks of the iteration under way (the plan's and its fix loops'), as the machine holds them.
import type { TeamEvent } from '../../machines/events.js';
import type { TaskView } from '../checkpoint/view.js';

export interface PlanTasks {
  /** Each planned task's title, by id, over every iteration. */
  titles: Map<string, string>;
  /** The ids of the tasks the iteration under way holds; a new ralph iteration starts an empty list. */
  current: Set<string>;
}

// The titles and the current tasks the events assign (tasks_assigned, task_assigned), in the order written.
export function planTasks(events: readonly TeamEvent[]): PlanTasks {
  const titles = new Map<string, string>();
  let current = new Set<string>();
  for (const e of events) {
    if (e.event === 'iteration_started') current = new Set();
    if (e.event === 'task_assigned') {
      current.add(e.task_id);
      if (e.task?.title) titles.set(e.task_id, e.task.title);
    }
    if (e.event === 'tasks_assigned') {
      for (const t of e.tasks) {
        current.add(t.task_id);
        if (t.task.title) titles.set(t.task_id, t.task.title);
      }
    }
  }
  return { titles, current };
}

// How many of the current tasks have completed, of how many.
export function doneOf(plan: PlanTasks, tasks: readonly TaskView[]): { done: number; total: number } {
  const done = tasks.filter((t) => plan.current.has(t.id) && t.status === 'completed').length;
  return { done, total: plan.current.size };
}
