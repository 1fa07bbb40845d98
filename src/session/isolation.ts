// Worktree isolation of one run (team.isolation): where each attempt works, the integration
// branch `team/<run>`, and what the log already says about branches, worktrees and merges (the
// fold's git facts, src/log/fold/git.ts, kept on as this orchestrator appends).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamEvent } from '../log/schema.js';
import { applyGitFact, type ConflictRecord, type GitFacts } from '../log/fold/git.js';
import type { Stage } from '../../workers/types.js';
import { idOfRefPart, refPart } from '../git/ref-part.js';
import { Serial } from '../git/serial.js';
import type { EventLog } from './event-log.js';
import type { Progress } from './progress.js';
import type { Logger } from '../sys/logger.js';
import { PROJECT_WORKTREES_DIR } from './worktree-root.js';

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

export type { ConflictRecord };

// What isolation's steps use of a run: its log, its isolation state, its progress and its logger.
export interface IsolationParts {
  readonly events: EventLog;
  readonly isolation: Isolation;
  readonly progress: Progress;
  readonly log: Logger;
}

// What the log already holds (GitFacts, merged into the class): merges and worktrees, conflicts by
// task, the integration branch's recorded tip, the last reading of the user's checkout.
export interface Isolation extends GitFacts {}
export class Isolation {
  /** Each attempt this orchestrator made ready, by `task#attempt`: `<task> a<N> on <worker>`. */
  readonly started = new Map<string, string>();
  private readonly steps = new Serial();

  // `git`: the fold's git facts when this orchestrator began (copied: the fold goes on by itself).
  constructor(
    readonly projectDir: string,
    readonly runId: string,
    git: GitFacts,
  ) {
    Object.assign(this, structuredClone(git));
  }

  // Keeps what the run's git facts say as they are written.
  note(event: TeamEvent): void {
    applyGitFact(this, event);
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

  // The folder of the run's worktrees: as run_started recorded it, or where older runs had them.
  get worktreesFolder(): string {
    return this.record?.worktrees ?? join(this.projectDir, PROJECT_WORKTREES_DIR, this.runId);
  }

  // The folder of a worker's worktree, or of the integration branch's.
  worktreePath(name: string): string {
    return join(this.worktreesFolder, name);
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
