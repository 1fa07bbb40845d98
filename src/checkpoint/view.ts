// Folds a run's events into the view that status, the CLI and resume read.
import { checkApproval, type ApprovalView } from './approvals.js';
import type { TeamEvent } from '../../machines/events.js';
import type { Problem, RunFiles } from './read.js';
import type { RunRecord } from './store.js';

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

const RUN_END: Record<string, string> = {
  run_completed: 'completed',
  run_failed: 'failed',
  run_cancelled: 'cancelled',
  run_stopped: 'stopped',
};

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
    eventCount: 0,
    problems: [],
  };
}

// Carries a fold on with more events, in the order written.
export function foldEvents(st: FoldState, events: Array<TeamEvent & { file: string }>): void {
  for (const event of events) applyEvent(st, event);
  st.eventCount += events.length;
}

// The view of a fold, with the run's approvals checked against the artifacts as they are now.
export function viewOf(st: FoldState, files: Pick<RunFiles, 'run' | 'approvals' | 'problems'>, projectDir: string): RunView {
  for (const task of st.tasks.values()) {
    for (const attempt of task.attempts) attempt.uncertain = attempt.status === 'running';
    task.status = task.attempts.at(-1)?.status ?? 'pending';
  }
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
    eventCount: st.eventCount,
  };
}

// Builds the whole view of a run from its files.
export function foldRun(files: RunFiles, projectDir: string): RunView {
  const st = newFold(files.run);
  foldEvents(st, files.events);
  return viewOf(st, files, projectDir);
}

function taskIn(tasks: Map<string, TaskView>, id: string): TaskView {
  let task = tasks.get(id);
  if (!task) tasks.set(id, (task = { id, status: 'pending', attempts: [], retries: [] }));
  return task;
}

function attemptIn(tasks: Map<string, TaskView>, id: string, number: number, event: { stage?: string; agent?: string }): AttemptView {
  const task = taskIn(tasks, id);
  let attempt = task.attempts.find((a) => a.attempt === number);
  if (!attempt) {
    attempt = newAttempt(number, event.stage ?? '', event.agent ?? '');
    task.attempts.push(attempt);
    task.attempts.sort((a, b) => a.attempt - b.attempt);
  }
  return attempt;
}

function iterationIn(iterations: IterationView[], k: number): IterationView {
  let found = iterations.find((it) => it.iteration === k);
  if (!found) iterations.push((found = { iteration: k, tasks: [], fixLoops: 0, outcome: 'running', reasons: [] }));
  return found;
}

function applyEvent(st: FoldState, event: TeamEvent & { file: string }): void {
  const { tasks, conflicts, terminalFiles, pipeline, iterations, usage } = st;
  const taskOf = (id: string) => taskIn(tasks, id);
  const attemptOf = (id: string, number: number, e: { stage?: string; agent?: string }) => attemptIn(tasks, id, number, e);
  const iterationOf = (k: number) => iterationIn(iterations, k);
  switch (event.event) {
    case 'task_started': {
      const attempt = attemptOf(event.task_id, event.attempt, event);
      Object.assign(attempt, { stage: event.stage, agent: event.agent, startedAt: event.at, inputs: event.inputs });
      if (!terminalFiles.has(key(event.task_id, event.attempt))) attempt.status = 'running';
      st.stage = event.stage;
      break;
    }
    case 'task_finished': {
      const attempt = attemptOf(event.task_id, event.attempt, event);
      const k = key(event.task_id, event.attempt);
      const seen = terminalFiles.get(k) ?? [];
      seen.push({ status: event.status, file: event.file });
      terminalFiles.set(k, seen);
      if (seen.length > 1) {
        attempt.status = 'conflict';
        conflicts.set(k, { task: event.task_id, attempt: event.attempt, statuses: seen.map((s) => s.status), files: seen.map((s) => s.file) });
      } else {
        Object.assign(attempt, {
          status: event.status,
          finishedAt: event.at,
          artifacts: event.artifacts,
          evidence: event.evidence,
          next: event.next,
        });
      }
      break;
    }
    case 'task_retry':
      taskOf(event.task_id).retries.push({ attempt: event.attempt, reason: event.reason, at: event.at });
      break;
    case 'task_assigned':
      taskOf(event.task_id);
      if (event.task && !/(^|\.)fix-\d+-/.test(event.task_id) && !iterationOf(pipeline.iteration).tasks.includes(event.task_id)) iterationOf(pipeline.iteration).tasks.push(event.task_id);
      break;
    case 'attempt_spawned':
      attemptOf(event.task_id, event.attempt, {}).worker = event.worker;
      break;
    case 'attempt_stalled':
      attemptOf(event.task_id, event.attempt, {}).stalled = true;
      break;
    case 'attempt_usage': {
      const attempt = attemptOf(event.task_id, event.attempt, event);
      const cost = event.cost_usd ?? 0;
      const tokens = event.tokens ?? { input: 0, output: 0 };
      attempt.costUsd += cost;
      attempt.tokens = addTokens(attempt.tokens, tokens);
      if (event.session_id) attempt.sessionId = event.session_id;
      for (const totals of [usage.run, (usage.byStage[event.stage] ??= emptyTotals()), (usage.byAgent[event.agent] ??= emptyTotals())]) {
        totals.costUsd += cost;
        totals.tokens = addTokens(totals.tokens, tokens);
      }
      break;
    }
    case 'stage_entered':
      st.stage = event.stage;
      pipeline.iteration = event.iteration;
      pipeline.loop = event.loop;
      break;
    case 'run_started':
      st.status = 'running';
      pipeline.maxIterations = event.mode === 'ralph' ? event.limits.maxIterations : undefined;
      pipeline.maxFixLoops = event.limits.maxFixLoops;
      break;
    case 'gates_result':
      st.gateDefects = event.gates.flatMap((g, i) => (g.exitCode === 0 ? [] : [{ id: `gate-${i + 1}`, description: `\`${g.command}\` ${g.timedOut ? 'timed out' : `exited ${g.exitCode}`}` }]));
      break;
    case 'verify_result':
      pipeline.lastDefects = [...st.gateDefects, ...event.defects];
      st.gateDefects = [];
      break;
    case 'review_result':
      pipeline.lastReview = { verdict: event.verdict, reasons: event.reasons, iteration: pipeline.iteration };
      break;
    case 'fix_loop_started':
      iterationOf(event.iteration).fixLoops = event.loop;
      break;
    case 'iteration_started': {
      const ended = iterationOf(event.iteration - 1);
      const rejected = pipeline.lastReview?.verdict === 'reject' && pipeline.lastReview.iteration === ended.iteration;
      ended.outcome = rejected ? 'rejected by the architect' : 'verify failed with its fix loops spent';
      ended.reasons = rejected ? pipeline.lastReview!.reasons : pipeline.lastDefects.map((d) => d.description);
      iterationOf(event.iteration);
      break;
    }
    case 'run_completed':
    case 'run_failed':
    case 'run_cancelled':
    case 'run_stopped':
      st.status = RUN_END[event.event]!;
      st.outcome = 'reason' in event ? event.reason : event.summary;
      if (iterations.length > 0) Object.assign(iterations.at(-1)!, { outcome: `${st.status}: ${st.outcome}`, reasons: pipeline.lastReview?.iteration === pipeline.iteration ? pipeline.lastReview.reasons : [] });
      break;
    case 'cancel_requested':
      if (!FINAL_STATUSES.has(st.status)) st.status = 'cancelling';
      break;
    default:
      break;
  }
}

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

function newAttempt(attempt: number, stage: string, agent: string): AttemptView {
  return { attempt, stage, agent, status: 'running', inputs: [], artifacts: [], evidence: '', next: '', uncertain: false, stalled: false, costUsd: 0, tokens: { input: 0, output: 0 } };
}

function key(task: string, attempt: number): string {
  return `${task}#${attempt}`;
}

function emptyTotals(): UsageTotals {
  return { costUsd: 0, tokens: { input: 0, output: 0 } };
}

function addTokens(a: { input: number; output: number }, b: { input: number; output: number }) {
  return { input: a.input + b.input, output: a.output + b.output };
}
