// Folds a run's events into the view that status, the CLI and resume read.
import { checkApproval, type ApprovalView } from './approvals.js';
import type { TeamEvent } from './schema.js';
import { applyEvent, emptyTotals } from './fold-event.js';
import type { Problem, RunFiles } from './read.js';
import type { RunRecord } from './write.js';

export type AttemptStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'awaiting_approval' | 'conflict';

export interface AttemptView {
  attempt: number;
  stage: string;
  agent: string;
  status: AttemptStatus;
  startedAt?: string;
  finishedAt?: string;
  inputs: string[];
  artifacts: string[];
  evidence: string;
  next: string;
  worker?: string;
  /** No terminal event: the log cannot say whether it finished. */
  uncertain: boolean;
  stalled: boolean;
  costUsd: number;
  tokens: { input: number; output: number };
  sessionId?: string;
}

export interface TaskView {
  id: string;
  /** The title its assignment carries (a fix task's names its defect). */
  title?: string;
  status: AttemptStatus | 'pending';
  attempts: AttemptView[];
  retries: Array<{ attempt: number; reason: string; at: string }>;
}

export interface Conflict {
  task: string;
  attempt: number;
  statuses: string[];
  files: string[];
}

export type { ApprovalView };

export interface UsageTotals {
  costUsd: number;
  tokens: { input: number; output: number };
}

export interface RunView {
  run: RunRecord;
  stage: string;
  status: string;
  tasks: TaskView[];
  uncertain: Array<{ task: string; attempt: number }>;
  conflicts: Conflict[];
  problems: Problem[];
  approvals: ApprovalView[];
  usage: { run: UsageTotals; byStage: Record<string, UsageTotals>; byAgent: Record<string, UsageTotals> };
  pipeline: PipelineProgress;
  /** Ralph: each iteration that ended, with the review's reasons. */
  iterations: IterationView[];
  /** Why the run ended, when it did. */
  outcome?: string;
  /** An orchestrator started the run; a run of `team state` commands is driven by hand. */
  orchestrated: boolean;
  eventCount: number;
}

// What one iteration of a run tried, and how it ended (the last one: how far it got).
export interface IterationView {
  iteration: number;
  tasks: string[];
  fixLoops: number;
  outcome: string;
  reasons: string[];
}

// Where a pipeline run stands: iteration k of K, fix loop j of J, the last verdicts.
export interface PipelineProgress {
  iteration: number;
  maxIterations?: number;
  loop: number;
  maxFixLoops?: number;
  lastDefects: Array<{ id: string; description: string }>;
  lastReview?: { verdict: string; reasons: string[]; iteration: number };
}

// The fold of a run's events so far: what the view is made from. Plain data and maps, so that it can
// be saved in a snapshot (view-snapshot.ts) and carried on with the events written after it.
export interface FoldState {
  stage: string;
  status: string;
  tasks: Map<string, TaskView>;
  conflicts: Map<string, Conflict>;
  terminalFiles: Map<string, Array<{ status: string; file: string }>>;
  pipeline: PipelineProgress;
  outcome?: string;
  iterations: IterationView[];
  gateDefects: Array<{ id: string; description: string }>;
  usage: RunView['usage'];
  /** Each assigned task's title, by task id. */
  titles: Record<string, string>;
  /** An orchestrator started the run (run_started): one drives it, or should (`team state` runs are driven by hand). */
  orchestrated: boolean;
  /** Valid events folded. */
  eventCount: number;
  /** Bad files met among the events folded. */
  problems: Problem[];
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
    iterations: [],
    gateDefects: [],
    usage: { run: emptyTotals(), byStage: {}, byAgent: {} },
    titles: {},
    orchestrated: false,
    eventCount: 0,
    problems: [],
  };
}

// Carries a fold on with more events, in the order written.
export function foldEvents(st: FoldState, events: Array<TeamEvent & { file: string }>): void {
  for (const event of events) applyEvent(st, event);
  st.eventCount += events.length;
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
    orchestrated: st.orchestrated,
    eventCount: st.eventCount,
  };
}

// Builds the whole view of a run from its files.
export function foldRun(files: RunFiles, projectDir: string): RunView {
  const st = newFold(files.run);
  foldEvents(st, files.events);
  return viewOf(st, files, projectDir);
}
