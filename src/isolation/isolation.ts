// Worktree isolation of one run (team.isolation): where each attempt works, the integration
// branch `team/<run>`, and what the log already says about branches, worktrees and merges.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { IsolationRecord, TeamEvent } from '../log/schema.js';
import type { Stage } from '../../workers/types.js';
import type { CheckoutState } from '../git/checkout-state.js';
import { idOfRefPart, refPart } from '../git/ref-part.js';
import { Serial } from '../git/serial.js';

// The folder under the project that holds every run's worktrees (never committed).
export const WORKTREES_DIR = join('.team', 'worktrees');
// The integration branch's own worktree, beside the workers'.
export const INTEGRATION_WORKTREE = 'integration';

// Exec and fix attempts write code: they run in their worker's worktree.
export function isWorkStage(stage: Stage): boolean {
  return stage === 'team-exec' || stage === 'team-fix';
}

// Between the integration branch's name and a task id in a task branch's name. Git cannot hold
// both `team/<run>` and `team/<run>/<task>` (a ref cannot also be a folder of refs), so a task's
// branch is `team/<run>--<task>`.
export const TASK_SEPARATOR = '--';

// A task's branch: `team/<run>--<task>` (an id git refuses in a ref written as src/git/ref-part.ts says).
export function taskBranch(integration: string, taskId: string): string {
  return `${integration}${TASK_SEPARATOR}${refPart(taskId)}`;
}

// The task a branch of this run belongs to, if it is a task branch.
export function taskOfBranch(integration: string, branch: string): string | undefined {
  const prefix = `${integration}${TASK_SEPARATOR}`;
  return branch.startsWith(prefix) ? idOfRefPart(branch.slice(prefix.length)) : undefined;
}

export interface ConflictRecord {
  task: string;
  branch: string;
  files: string[];
}

export class Isolation {
  record?: IsolationRecord;
  /** What the log already holds: keys `task#attempt`, worktree paths, conflicts by task. */
  readonly mergesStarted = new Set<string>();
  readonly mergesDone = new Set<string>();
  readonly worktrees = new Set<string>();
  readonly conflicts = new Map<string, ConflictRecord>();
  /** Per conflict-fix task: the files it found conflicted. */
  readonly fixing = new Map<string, string[]>();
  /** The last attempt each task's worktree was made ready for. */
  readonly attempts = new Map<string, number>();
  /** When each attempt's worktree was first made ready (ms), by `task#attempt`: its agent's commits are looked for from then on. */
  readonly readyAt = new Map<string, number>();
  /** The commit the log last recorded for the integration branch (created, merged into, restored). */
  tip?: string;
  /** The last reading of the user's checkout (checkout_recorded, checkout_changed). */
  checkout?: CheckoutState;
  /** Each attempt this orchestrator made ready, by `task#attempt`: `<task> a<N> on <worker>`. */
  readonly started = new Map<string, string>();
  /** The task tip of each merge started and not recorded done, by `task#attempt`. */
  readonly pendingMerges = new Map<string, string>();
  private readonly steps = new Serial();

  constructor(
    readonly projectDir: string,
    readonly runId: string,
    events: TeamEvent[],
  ) {
    for (const event of events) this.note(event);
  }

  // Keeps what the run's git facts say (from the log at start, and as they are written).
  note(event: TeamEvent): void {
    const key = 'task_id' in event && 'attempt' in event ? `${event.task_id}#${event.attempt}` : '';
    if (event.event === 'run_started' && event.isolation) this.record = event.isolation;
    else if (event.event === 'merge_started') {
      this.mergesStarted.add(key);
      this.pendingMerges.set(key, event.tip);
    } else if (event.event === 'merge_done') {
      this.mergesDone.add(key);
      this.pendingMerges.delete(key);
      if (event.into === this.record?.branch) this.tip = event.commit;
    } else if ((event.event === 'branch_created' || event.event === 'branch_restored') && event.branch === this.record?.branch) this.tip = event.commit;
    else if (event.event === 'worktree_ready') {
      this.worktrees.add(event.path);
      this.attempts.set(event.task_id, event.attempt);
      // A resumed attempt's worktree is made ready again: its agent's commits count from the first time.
      if (!this.readyAt.has(key)) this.readyAt.set(key, Date.parse(event.at));
      if (event.merging) this.fixing.set(event.task_id, event.conflicts ?? []);
    } else if (event.event === 'checkout_recorded' || event.event === 'checkout_changed') this.checkout = event.state;
    else if (event.event === 'merge_failed' && event.reason === 'conflict') this.conflicts.set(event.task_id, { task: event.task_id, branch: event.branch, files: event.files });
  }

  get active(): boolean {
    return this.record?.mode === 'worktree' && this.record.branch !== undefined;
  }

  get branch(): string {
    return this.record!.branch!;
  }

  /** The git remote the branches go through (PostgreSQL store), when the workers are team workers. */
  get remote(): string | undefined {
    return this.active ? this.record!.remote : undefined;
  }

  // The folder of a worker's worktree, or of the integration branch's.
  worktreePath(name: string): string {
    return join(this.projectDir, WORKTREES_DIR, this.runId, name);
  }

  // Where an attempt of `stage` on `worker` works: its worktree (exec, fix), the integration
  // worktree (the other stages), or the project itself without isolation.
  workDir(stage: Stage, worker: string): string {
    if (!this.active) return this.projectDir;
    return join(this.worktreePath(isWorkStage(stage) ? worker : INTEGRATION_WORKTREE), this.record!.prefix ?? '');
  }

  // Runs git work on the repository one step at a time (merges must not interleave).
  serial<T>(work: () => Promise<T>): Promise<T> {
    return this.steps.run(work);
  }
}

// True when the folder exists and is a git worktree's root.
export function isWorktree(path: string): boolean {
  return existsSync(join(path, '.git'));
}
