// The pipeline machine's context, input and events. Types only.
import type { Defect, Findings, GateResult, Limits, NewEvent, RoutingDecision, RoutingPolicy, Schedule, TaskDef } from '../src/log/schema.js';
import type { Stage } from '../workers/types.js';
import type { TaskIndex } from './task-index.js';
import type { TaskState, TaskStatus } from './task-state.js';
import type { AgentThrottle } from '../src/rules/throttle.js';
import type { LogInputEvent } from './inputs.js';

export type { Defect, Findings, GateResult, Limits, NewEvent, RoutingDecision, RoutingPolicy, TaskDef, Stage, TaskState, TaskStatus };

// The one agent attempt of a single-agent stage (planner, analyst, verifier, architect).
export interface StageAttempt {
  id: string;
  stage: Stage;
  role: string;
  attempt: number;
  failures: number;
  status: TaskStatus;
  evidence: string;
  /** Its current attempt was rate limited: its end is no failure, and the next waits for the back-off. */
  throttled?: boolean;
}

export interface HandoffRecord {
  stage: Stage | 'team-cancel';
  path: string;
}

// One finished iteration, for the summary and the next iteration's prompts.
export interface IterationRecord {
  iteration: number;
  loops: number;
  outcome: string;
  defects: Defect[];
  reviewReasons: string[];
}

export interface PipelineInput {
  mode: 'team' | 'ralph';
  task: string;
  workers: number;
  agentType: string;
  limits: Limits;
  gates: string[];
  agents: Record<string, string>;
  defaultAgent: string;
  session: string;
  parent_session: string;
  /** Worktree isolation: the integration branch that holds the merged work. */
  workBranch?: string;
  /** How idle workers take tasks (run_started's); absent: plan-order, as runs of earlier versions did. */
  schedule?: Schedule;
  /** Stage routing (run_started's); absent: one agent per stage, as runs of earlier versions did. */
  routing?: RoutingPolicy;
  /** The model each role runs on, as the cost mode chose (run_started's); absent: each agent's own. */
  models?: Record<string, string>;
  /** The best of N for every planned task that names none (run_started's); absent: one attempt at a time. */
  bestOf?: number;
  /**
   * The steps may change the task map in place instead of copying it: for an actor that never goes
   * back to an earlier snapshot (the live run, the replay), where a copy per event would make a run
   * cost tasks x events. Not part of the log; pure transition() callers leave it off.
   */
  inPlace?: boolean;
}

export interface PipelineContext extends PipelineInput {
  /** The stage entered last. */
  stage: Stage;
  iteration: number;
  /** Fix loops spent in this iteration. */
  loop: number;
  /** Handoffs written so far, in order. */
  handoffs: HandoffRecord[];
  tasks: Record<string, TaskState>;
  /** Counters and the scan cursor over `tasks`, changed with them (TaskDraft). */
  taskIndex: TaskIndex;
  /** Task ids in plan order, for deterministic scheduling. */
  order: string[];
  stageAttempt: StageAttempt | null;
  /** The single-agent attempts of this stage that ended before stageAttempt started, each of its own role (explore, then the planner before its architect; the analyst before its critic). */
  stageEarlier: StageAttempt[];
  needsPrd: boolean;
  gateResults: GateResult[];
  verdict: 'pass' | 'fail' | null;
  defects: Defect[];
  reviewReasons: string[];
  /** Per worker, how many distinct tasks failed on it. */
  workerFailures: Record<string, number>;
  retryInterrupted: boolean;
  iterations: IterationRecord[];
  /** Why the run failed, was cancelled or stopped. */
  reason: string;
  /** The stage that was active when the run began to end (for its handoff). */
  endingStage: Stage | null;
  cancelForce: boolean;
  /** Roles whose fallback to another role's agent the log already noted (said once per run). */
  noted: string[];
  /** The reviewers of this verify pass, running beside the verifier (stageAttempt). */
  reviewers: StageAttempt[];
  /** Each reviewer's verdict and defects, by its task id. */
  reviews: Record<string, { verdict: 'pass' | 'fail'; defects: Defect[] }>;
  /** The scan of the run's changes for this verify pass. */
  changes: { files: number; security: string[] } | null;
  /** The plan marked the work architectural. */
  architectural: boolean;
  /** After `team scale`: the workers that may take work (absent: worker-1..workers). */
  roster?: string[];
  /** After `team scale`: the highest worker number named so far (names are never reused). */
  named?: number;
  /** The plan's width (ownership.ts) when it is narrower than the roster: only the first this many workers take its tasks. */
  planWidth?: number;
  /** The planner asked for an architect (needsArchitect). */
  architectAsked: boolean;
  /** The plan's architect: its notes and risks, for the plan's handoff. */
  architectNotes: { notes: string[]; risks: string[] };
  /** The critic's objections to this iteration's PRD, for its handoff. */
  objections: string[];
  /** What this iteration's explore agent found, for the planner and the plan's handoff. */
  findings: Findings | null;
  /** The routing decisions so far, in words, for the handoffs. */
  decisions: Array<{ stage: Stage; iteration: number; loop: number; text: string }>;
  /** Per agent, its lanes and back-off (issue 29); absent in snapshots of earlier versions: none throttled. */
  throttle?: Record<string, AgentThrottle>;
  /** Why no attempt may start: the budget is spent (budget_exceeded), or an agent's quota (quota_reached); '' or absent: none. */
  budgetHold?: string;
  /** The hold is a spent quota: `team resume` once it is back goes on (quota_cleared), no budget to raise. */
  quotaHold?: boolean;
  /** The budget's parts that ran out: the flags `team resume` raises them with (none: both named). */
  budgetParts?: Array<'usd' | 'tokens'>;
}

// What the runtime needs to run one attempt.
export interface AttemptInput {
  taskId: string;
  attempt: number;
  stage: Stage;
  role: string;
  agent: string;
  worker: string;
  /** The planned task, for exec and fix attempts. */
  def?: TaskDef;
  /** Completed dependencies' results, for exec attempts. */
  dependencies: Array<{ id: string; title: string; evidence: string; artifacts: string[] }>;
  defects: Defect[];
  handoffs: HandoffRecord[];
  runTask: string;
  /** Task graph so far, for the single-agent stages' prompts (prd, verify, review); empty for exec and fix attempts. */
  tasks: TaskDef[];
  iteration: number;
  loop: number;
  /** A new orchestrator takes over this running attempt: reconcile it, never start it again. */
  resumed?: boolean;
  /** The model the cost mode chose for the role on this agent; absent: the agent's own. */
  model?: string;
  /** The planner's: what the explore agent found. */
  findings?: Findings;
  /** The selector's (issue 38): the candidates it chooses among, each a task id. */
  candidates?: string[];
}

// What the runtime needs to write one handoff.
export interface HandoffInput {
  stage: Stage | 'team-cancel';
  next: string;
  index: number;
  context: PipelineContext;
}

// The machine's events: the log's inputs (one table, inputs.ts), and the runtime's own resume.
export type PipelineEvent =
  | LogInputEvent
  /**
   * Not logged: a new orchestrator asks the restored machine to restart its in-flight effects.
   * `unlaunched`: running attempts whose task_started this orchestrator writes itself (the
   * transition a crash cut short), so no worker of theirs can exist: they start, never reconcile.
   */
  | { type: 'runtime.resume'; unlaunched: Array<{ task_id: string; attempt: number }> };
