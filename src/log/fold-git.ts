// The git facts of a run's fold (worktree isolation): what the orchestrator's isolation needs to go on
// (merges, worktrees, conflicts) and which branch holds what (BranchesView, for status and the summary).
import type { IsolationRecord, TeamEvent } from './schema.js';

export interface TaskBranchView {
  task: string;
  branch: string;
  /** merged into the integration branch, or not (conflict, refused), or not yet. */
  state: 'merged' | 'conflict' | 'refused' | 'not merged';
  files: string[];
}

export interface BranchesView {
  mode: 'worktree' | 'none';
  reason: string;
  branch?: string;
  userBranch?: string;
  /** PostgreSQL store: the git remote the run's branches went through (team.remote). */
  remote?: string;
  tasks: TaskBranchView[];
  /** The last branches_kept: branches with commits their target lacks. */
  kept: Array<{ branch: string; commits: number }>;
  landed?: { into: string; commit: string };
}

// A task's branch whose merge conflicted, and in which files.
export type ConflictRecord = Omit<TaskBranchView, 'state'>;

// What the log says about a run's branches, worktrees and merges.
export interface GitFacts {
  record?: IsolationRecord;
  /** Keys `task#attempt`. */
  mergesStarted: Set<string>;
  mergesDone: Set<string>;
  /** Worktree paths made ready. */
  worktrees: Set<string>;
  /** The last merge conflict of each task. */
  conflicts: Map<string, ConflictRecord>;
  /** Per conflict-fix task: the files it found conflicted. */
  fixing: Map<string, string[]>;
  /** The last attempt each task's worktree was made ready for. */
  attempts: Map<string, number>;
  /** Each task branch's state (once the run's isolation is known), by task. */
  branches: Map<string, TaskBranchView>;
  kept: Array<{ branch: string; commits: number }>;
  landed?: { into: string; commit: string };
}

// The git facts of a log with none.
export function newGitFacts(): GitFacts {
  return { mergesStarted: new Set(), mergesDone: new Set(), worktrees: new Set(), conflicts: new Map(), fixing: new Map(), attempts: new Map(), branches: new Map(), kept: [] };
}

// Folds one git fact (any other event changes nothing): the fold's, and the live isolation's as it appends.
export function applyGitFact(git: GitFacts, event: TeamEvent): void {
  // A task branch's state, once the run's isolation is known.
  const branch = (task: string, state: TaskBranchView['state'], files: string[] = []) => git.record && git.branches.set(task, { task, branch: (event as { branch: string }).branch, state, files });
  switch (event.event) {
    case 'run_started':
      if (event.isolation) git.record = event.isolation;
      break;
    case 'merge_started':
      git.mergesStarted.add(`${event.task_id}#${event.attempt}`);
      break;
    case 'merge_done':
      git.mergesDone.add(`${event.task_id}#${event.attempt}`);
      branch(event.task_id, 'merged');
      break;
    case 'merge_failed':
      if (event.reason === 'conflict') git.conflicts.set(event.task_id, { task: event.task_id, branch: event.branch, files: event.files });
      branch(event.task_id, event.reason === 'conflict' ? 'conflict' : 'refused', event.files);
      break;
    case 'worktree_ready':
      git.worktrees.add(event.path);
      git.attempts.set(event.task_id, event.attempt);
      if (event.merging) git.fixing.set(event.task_id, event.conflicts ?? []);
      break;
    case 'branch_created':
      if (event.task_id) branch(event.task_id, 'not merged');
      break;
    case 'branches_kept':
      if (git.record) git.kept = event.branches;
      break;
    case 'branch_landed':
      if (git.record) git.landed = { into: event.into, commit: event.commit };
      break;
    default:
      break;
  }
}

// Which branch holds what; undefined for a run started before isolation existed.
export function branchesOf(git: GitFacts): BranchesView | undefined {
  if (!git.record) return undefined;
  const { mode, reason, branch, userBranch, remote } = git.record;
  return { mode, reason, branch, userBranch, ...(remote !== undefined && { remote }), tasks: [...git.branches.values()], kept: git.kept, ...(git.landed && { landed: git.landed }) };
}
