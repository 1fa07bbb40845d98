// One task of the task graph as the pipeline machine keeps it. Types only.
import type { TaskDef } from '../src/log/schema.js';

// Where a task or a stage's attempt stands.
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'interrupted';

// One task of the task graph (a planned task or a fix task).
export interface TaskState {
  id: string;
  def: TaskDef;
  /** select: the best of N's selector (issue 38), which runs once the task's candidates ended and merges the one it picks. */
  kind: 'exec' | 'fix' | 'select';
  role: string;
  worker: string;
  status: TaskStatus;
  /** The current or last attempt number; 0 before the first. */
  attempt: number;
  /** Attempts that ended failed (interrupted ones do not count). */
  failures: number;
  /** Workers an attempt of this task failed on: a retry goes elsewhere when it can. */
  failedOn: string[];
  evidence: string;
  artifacts: string[];
  /** The exec pass (0 = first, k = after fix loop k) the task belongs to. */
  pass: number;
  /** The agent it runs on when routing chose one other than its role's (a planner's tag). */
  agent?: string;
  /** Its branch could not be merged (a conflict, teamline's files): a retry would meet the same. */
  mergeFailed?: string;
  /** Files its running attempt reserved through team_reserve: held, with the plan's `files`, against tasks that would change them. */
  reserved?: string[];
  /** The attempt of this number was rate limited: its end is no failure (issue 29). */
  throttled?: number;
  /** A select task's candidates (`<task>--c<k>`), each an exec task of its own on its own branch. */
  candidates?: string[];
}
