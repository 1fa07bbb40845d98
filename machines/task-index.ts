// Counters and a scan cursor over the task graph, kept in the context so that the guards and the
// scheduler read them instead of scanning every task: each change of a task updates them in O(1).
import type { TaskState, TaskStatus } from './task-state.js';

export interface TaskIndex {
  /** Tasks by status. */
  counts: Record<TaskStatus, number>;
  /** Ids of the running tasks (at most one per worker). */
  running: string[];
  /** No task before this position of `order` is pending: scheduling looks from here. */
  cursor: number;
  /** A task became pending or failed since the last look for tasks that can never run. */
  recheck: boolean;
}

// The index of a graph with no task.
export function emptyTaskIndex(): TaskIndex {
  return { counts: { pending: 0, running: 0, completed: 0, failed: 0, interrupted: 0 }, running: [], cursor: 0, recheck: false };
}

// The index of a whole task map, for the steps that replace it (a plan, a resume): O(tasks), once.
export function indexTasks(tasks: Record<string, TaskState>): TaskIndex {
  const index = emptyTaskIndex();
  for (const id in tasks) {
    const status = tasks[id]!.status;
    index.counts[status] += 1;
    if (status === 'running') index.running.push(id);
  }
  index.recheck = index.counts.pending > 0;
  return index;
}

// Every task of the graph has ended (completed or failed).
export function isPassDone(index: TaskIndex): boolean {
  return index.counts.pending + index.counts.running + index.counts.interrupted === 0;
}

// Nothing runs and nothing can start, but interrupted tasks wait for a decision. Every exec event
// dispatches first: with nothing running, no pending task can start either (it waits for an
// interrupted one), so the run needs a decision.
export function needsDecision(index: TaskIndex): boolean {
  return index.counts.running === 0 && index.counts.interrupted > 0;
}

// The task map and its index for one step: both are copied on the first change only, so a step
// that changes nothing is cheap and the context of the step before stays as it was. With the
// context's `inPlace`, the task map is changed where it is (the index, a few numbers, is still copied).
export class TaskDraft {
  tasks: Record<string, TaskState>;
  index: TaskIndex;
  private copied = false;
  private readonly inPlace: boolean;

  constructor(context: { tasks: Record<string, TaskState>; taskIndex: TaskIndex; inPlace?: boolean }) {
    this.tasks = context.tasks;
    this.index = context.taskIndex;
    this.inPlace = context.inPlace === true;
  }

  put(task: TaskState): void {
    this.copy();
    const before = this.tasks[task.id];
    this.tasks[task.id] = task;
    if (before?.status === task.status) return;
    const counts = this.index.counts;
    if (before) counts[before.status] -= 1;
    counts[task.status] += 1;
    if (before?.status === 'running') this.index.running = this.index.running.filter((id) => id !== task.id);
    if (task.status === 'running') this.index.running = [...this.index.running, task.id];
    if (task.status === 'pending' || task.status === 'failed') Object.assign(this.index, { cursor: 0, recheck: true });
  }

  // Scheduling looked at every task before `cursor` and found none pending; `recheck` is done.
  scanned(cursor: number, rechecked: boolean): void {
    if (cursor === this.index.cursor && (!rechecked || !this.index.recheck)) return;
    this.copy();
    this.index.cursor = cursor;
    if (rechecked) this.index.recheck = false;
  }

  // The context changes of the step: none when nothing changed.
  get changes(): { tasks: Record<string, TaskState>; taskIndex: TaskIndex } | Record<string, never> {
    return this.copied ? { tasks: this.tasks, taskIndex: this.index } : {};
  }

  private copy(): void {
    if (this.copied) return;
    if (!this.inPlace) this.tasks = { ...this.tasks };
    this.index = { ...this.index, counts: { ...this.index.counts } };
    this.copied = true;
  }
}
