// The git facts of a run's fold (worktree isolation): what the orchestrator's isolation needs to go on
// (merges, worktrees, conflicts) and which branch holds what (BranchesView, for status and the summary).
import type { EventOf, IsolationRecord, TeamEvent } from '../schema.js';
import { parseLogTime } from '../time.js';

export interface TaskBranchView {
  task: string;
  branch: string;
  /** merged into the integration branch, or not (conflict, refused), or not yet. */
  state: 'merged' | 'conflict' | 'refused' | 'not merged' | 'picked' | 'not picked';
  files: string[];
}

export interface BranchesView {
  mode: 'worktree' | 'none';
  reason: string;
  branch?: string;
  userBranch?: string;
  /** PostgreSQL store: the git remote the run's branches went through (team.remote). */
  remote?: string;
  /** The folder of the run's worktrees, as run_started recorded it (absent in older logs). */
  worktrees?: string;
  tasks: TaskBranchView[];
  /** The last branches_kept: branches with commits their target lacks. */
  kept: Array<{ branch: string; commits: number }>;
  landed?: { into: string; commit: string };
  /** Each time the integration branch was put back at its recorded commit (an agent deleted or moved it). */
  restored?: Array<{ commit: string; was?: string; kept?: string }>;
  /** Stale git locks found in the user's checkout on a resume (reported, never removed). */
  userLocks?: string[];
  /** isolation none: the user's uncommitted work saved at the start (checkout_saved), and whether `team restore` put it back. */
  saved?: { ref: string; commit: string; paths: string[]; restored?: { kept: string } };
  /** Whether the run's attempts ran inside the OS fence (run_started); absent in older logs and store runs. */
  fence?: { on: boolean; why?: string };
  /** The writes the fence refused, per attempt (`t1 a1 on worker-1`), in the log's order. */
  refused?: Array<{ attempt: string; paths: string[] }>;
  /** The files merged tasks changed outside what their plan declared, per attempt (`t1 a1`), in the log's order. */
  strayed?: Array<{ attempt: string; paths: string[]; more: number }>;
  /** What the watch on the user's checkout saw change during the run, and how many of those a `team land --acknowledge` took as seen. */
  checkout?: { changed: Array<{ changes: string[]; seen: string; attempts: string[] }>; acknowledged: number };
}

// A task's branch whose merge conflicted, and in which files.
export type ConflictRecord = Omit<TaskBranchView, 'state'>;

// What the log says about a run's branches, worktrees and merges.
export interface GitFacts {
  record?: IsolationRecord;
  /** Keys `task#attempt`. */
  mergesStarted: Set<string>;
  mergesDone: Set<string>;
  /** The task tip of each merge started and not recorded done, by `task#attempt`. */
  pendingMerges: Map<string, string>;
  /** Worktree paths made ready. */
  worktrees: Set<string>;
  /** The last merge conflict of each task. */
  conflicts: Map<string, ConflictRecord>;
  /** Per conflict-fix task: the files it found conflicted. */
  fixing: Map<string, string[]>;
  /** The last attempt each task's worktree was made ready for. */
  attempts: Map<string, number>;
  /** When each attempt's worktree was first made ready (ms), by `task#attempt`: its agent's commits are looked for from then on. */
  readyAt: Map<string, number>;
  /** The commit the log last recorded for the integration branch (created, merged into, restored). */
  tip?: string;
  /** The last reading of the user's checkout (checkout_recorded, checkout_changed). */
  checkout?: EventOf<'checkout_recorded'>['state'];
  /** Each task branch's state (once the run's isolation is known), by task. */
  branches: Map<string, TaskBranchView>;
  /** What BranchesView tells beside the task branches, in the order the log first told it. */
  told: Pick<BranchesView, 'kept' | 'landed' | 'restored' | 'userLocks' | 'checkout' | 'fence' | 'refused' | 'strayed' | 'saved'>;
}

// The git facts of a log with none.
export function newGitFacts(): GitFacts {
  return { mergesStarted: new Set(), mergesDone: new Set(), pendingMerges: new Map(), worktrees: new Set(), conflicts: new Map(), fixing: new Map(), attempts: new Map(), readyAt: new Map(), branches: new Map(), told: { kept: [] } };
}

// Folds one git fact (any other event changes nothing): the fold's, and the live isolation's as it appends.
export function applyGitFact(git: GitFacts, event: TeamEvent): void {
  const key = 'task_id' in event && 'attempt' in event ? `${event.task_id}#${event.attempt}` : '';
  // A task branch's state, and what else the branches tell, once the run's isolation is known.
  const branch = (task: string, state: TaskBranchView['state'], files: string[] = []) => git.record && git.branches.set(task, { task, branch: (event as { branch: string }).branch, state, files });
  const told = git.record ? git.told : undefined;
  switch (event.event) {
    case 'run_started':
      if (event.isolation) git.record = event.isolation;
      if (event.fence) git.told.fence = event.fence;
      break;
    case 'checkout_saved':
      git.told.saved = { ref: event.ref, commit: event.commit, paths: event.paths };
      break;
    case 'checkout_restored':
      if (git.told.saved) git.told.saved.restored = { kept: event.kept };
      break;
    case 'fence_lost':
      git.told.fence = { on: false, why: event.why };
      break;
    case 'files_strayed':
      (git.told.strayed ??= []).push({ attempt: `${event.task_id} a${event.attempt}`, paths: event.paths, more: event.more });
      break;
    case 'fence_refused':
      (git.told.refused ??= []).push({ attempt: `${event.task_id} a${event.attempt} on ${event.worker}`, paths: event.paths });
      break;
    case 'merge_started':
      git.mergesStarted.add(key);
      git.pendingMerges.set(key, event.tip);
      break;
    case 'merge_done':
      git.mergesDone.add(key);
      git.pendingMerges.delete(key);
      if (event.into === git.record?.branch) git.tip = event.commit;
      branch(event.task_id, 'merged');
      break;
    case 'merge_failed':
      if (event.reason === 'conflict') git.conflicts.set(event.task_id, { task: event.task_id, branch: event.branch, files: event.files });
      branch(event.task_id, event.reason === 'conflict' ? 'conflict' : 'refused', event.files);
      break;
    case 'worktree_ready':
      git.worktrees.add(event.path);
      git.attempts.set(event.task_id, event.attempt);
      // A resumed attempt's worktree is made ready again: its agent's commits count from the first time.
      if (!git.readyAt.has(key)) git.readyAt.set(key, parseLogTime(event.at));
      if (event.merging) git.fixing.set(event.task_id, event.conflicts ?? []);
      break;
    case 'branch_created':
      if (event.branch === git.record?.branch) git.tip = event.commit;
      if (event.task_id) branch(event.task_id, 'not merged');
      break;
    case 'candidate_picked':
      // The best of N: the pick's branch is merged under its select task; the others stay as they are, not merged.
      for (const view of git.branches.values()) {
        if (view.task.startsWith(`${event.task_id}--c`) && /^\d+$/.test(view.task.slice(event.task_id.length + 3))) view.state = view.task === event.pick ? 'picked' : 'not picked';
      }
      break;
    case 'branch_restored':
      if (event.branch === git.record?.branch) git.tip = event.commit;
      if (told) (told.restored ??= []).push({ commit: event.commit, ...(event.was !== undefined && { was: event.was }), ...(event.kept !== undefined && { kept: event.kept }) });
      break;
    case 'checkout_recorded':
      git.checkout = event.state;
      break;
    case 'checkout_changed':
      git.checkout = event.state;
      if (told) (told.checkout ??= { changed: [], acknowledged: 0 }).changed.push({ changes: event.changes, seen: event.seen, attempts: event.attempts });
      break;
    case 'checkout_acknowledged':
      if (told?.checkout) told.checkout.acknowledged = event.changes;
      break;
    case 'git_lock_stale':
      if (told && !event.removed) (told.userLocks ??= []).push(event.path);
      break;
    case 'branches_kept':
      if (told) told.kept = event.branches;
      break;
    case 'branch_landed':
      if (told) told.landed = { into: event.into, commit: event.commit };
      break;
    default:
      break;
  }
}

// Which branch holds what; undefined for a run started before isolation existed.
export function branchesOf(git: GitFacts): BranchesView | undefined {
  if (!git.record) return undefined;
  const { mode, reason, branch, userBranch, remote, worktrees } = git.record;
  return { mode, reason, branch, userBranch, ...(remote !== undefined && { remote }), ...(worktrees !== undefined && { worktrees }), tasks: [...git.branches.values()], ...git.told };
}
