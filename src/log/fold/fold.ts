// The one fold of a run's events into its facts: status, list, wait, watch, report, the checkpoint
// writer, the worker registry, isolation and resume all read it (docs/design.md, "One fold").
import { checkApproval } from '../approvals.js';
import type { TeamEvent } from '../schema.js';
import { applyEvent } from './event.js';
import { emptyTotals } from './tasks.js';
import { branchesOf, newGitFacts, type BranchesView } from './git.js';
import { newWorkerReports } from './tasks.js';
import { newStory, type RunStory } from './story.js';
import { newTeamFacts, type TeamFacts } from './team.js';
import type { ApprovalView, Conflict, FoldState, IterationView, PipelineProgress, RunUsage, TaskView } from './types.js';
import type { Problem, RunFiles } from '../read.js';
import type { RunRecord } from '../write.js';
import { newSpend, spendOf, type SpendView } from './spend.js';

export type * from './types.js';

export interface RunView {
  run: RunRecord;
  stage: string;
  status: string;
  tasks: TaskView[];
  uncertain: Array<{ task: string; attempt: number }>;
  conflicts: Conflict[];
  problems: Problem[];
  approvals: ApprovalView[];
  usage: RunUsage;
  pipeline: PipelineProgress;
  /** Ralph: each iteration that ended, with the review's reasons. */
  iterations: IterationView[];
  /** Why the run ended, when it did. */
  outcome?: string;
  /** An orchestrator started the run; a run of `team state` commands is driven by hand. */
  orchestrated: boolean;
  eventCount: number;
  /** The ids of the tasks the iteration under way holds (the plan's and its fix loops'). */
  current: ReadonlySet<string>;
  /** Which branch holds what (worktree isolation); undefined for a run started before isolation existed. */
  branches?: BranchesView;
  story: RunStory;
  /** The team tools' messages, notes, reservations (issue 28). */
  team: TeamFacts;
  /** The time of the last event, and of the last end record (run_completed, _failed, _cancelled, _stopped). */
  lastAt?: string;
  endedAt?: string;
  /** Spend against the budget, and the agents under a rate limit (issue 29). */
  spend: SpendView;
}

// The fold of a run with no event yet.
export function newFold(run: RunRecord): FoldState {
  return {
    stage: run.stage,
    status: run.status,
    tasks: new Map(),
    conflicts: new Map(),
    terminalFiles: new Map(),
    pipeline: { iteration: 1, loop: 0, lastDefects: [] },
    // Every key in one order, however the events come (live, or read back): the snapshot's bytes are alike.
    outcome: undefined,
    iterations: [],
    gateDefects: [],
    usage: { run: emptyTotals(), byStage: {}, byAgent: {} },
    titles: {},
    started: undefined,
    current: new Set(),
    assigned: new Map(),
    handles: new Map(),
    gateGroups: [],
    git: newGitFacts(),
    reports: newWorkerReports(),
    story: newStory(),
    team: newTeamFacts(),
    lastAt: undefined,
    endedAt: undefined,
    eventCount: 0,
    problems: [],
    spend: newSpend(),
  };
}

// Carries a fold on with more events, in the order written.
export function foldEvents(st: FoldState, events: ReadonlyArray<TeamEvent & { file: string }>): void {
  for (const event of events) applyEvent(st, event);
  st.eventCount += events.length;
  if (events.length > 0) st.lastAt = events[events.length - 1]!.at;
}

// Sets each task's status and each attempt's uncertainty from its attempts (in place; the same
// whenever it runs, so a fold looks the same whether or not a view was taken of it before).
export function settleTasks(st: FoldState): void {
  for (const task of st.tasks.values()) {
    const title = st.titles[task.id];
    if (title !== undefined) task.title = title;
    for (const attempt of task.attempts) attempt.uncertain = attempt.status === 'running';
    task.status = task.attempts.at(-1)?.status ?? 'pending';
  }
}

// The view of a fold, with the run's approvals checked against the artifacts as they are now.
export function viewOf(st: FoldState, files: Pick<RunFiles, 'run' | 'approvals' | 'problems'>, projectDir: string): RunView {
  settleTasks(st);
  const taskList = [...st.tasks.values()];
  return {
    run: files.run,
    stage: st.stage,
    status: st.status,
    tasks: taskList,
    uncertain: taskList.flatMap((t) => t.attempts.filter((a) => a.uncertain).map((a) => ({ task: t.id, attempt: a.attempt }))),
    conflicts: [...st.conflicts.values()],
    problems: [...st.problems, ...files.problems],
    approvals: files.approvals.map((approval) => checkApproval(approval, projectDir)),
    usage: st.usage,
    pipeline: st.pipeline,
    iterations: st.iterations,
    outcome: st.outcome,
    orchestrated: st.started !== undefined,
    eventCount: st.eventCount,
    current: st.current,
    branches: branchesOf(st.git),
    story: st.story,
    team: st.team,
    lastAt: st.lastAt,
    endedAt: st.endedAt,
    spend: spendOf(st),
  };
}

// Folds a run's events from the start.
export function foldOf(run: RunRecord, events: ReadonlyArray<TeamEvent & { file: string }>): FoldState {
  const st = newFold(run);
  foldEvents(st, events);
  return st;
}

// Builds the whole view of a run from its files.
export function foldRun(files: RunFiles, projectDir: string): RunView {
  return viewOf(foldOf(files.run, files.events), files, projectDir);
}
