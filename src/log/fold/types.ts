// The fold's state and the parts of a run's view (fold.ts): tasks and their attempts, conflicts,
// usage, pipeline progress.
import type { ApprovalView } from '../approvals.js';
import type { GitFacts } from './git.js';
import type { TeamFacts } from './team.js';
import type { RunStory } from './story.js';
import type { Problem } from '../read.js';
import type { Defect, EventOf } from '../schema.js';
import type { SpendState } from './spend.js';

// What the log holds of the team workers' reports: the attempts taken, the attempts that stalled
// (keys `task#attempt`) and the usage and spend reports read (by their seq). The run's writer folds
// each report into the log once (src/remote/worker-news.ts).
export interface WorkerReports {
  taken: Set<string>;
  stalled: Set<string>;
  seqs: Set<number>;
}

// A started worker or gate group as the log records it (workers/types.ts: WorkerHandle).
type LoggedHandle = EventOf<'attempt_spawned'>['handle'];

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
  /** A rate limit interrupted it (attempt_throttled): no failure, tried again after a back-off. */
  rateLimited?: true;
  /** No terminal event: the log cannot say whether it finished. */
  uncertain: boolean;
  stalled: boolean;
  costUsd: number;
  tokens: { input: number; output: number; cached?: number };
  sessionId?: string;
}

export interface TaskView {
  id: string;
  /** The title its assignment carries (a fix task's names its defect). */
  title?: string;
  status: AttemptStatus | 'pending';
  attempts: AttemptView[];
  retries: Array<{ attempt: number; reason: string; at: string }>;
  /** The best of N (issue 38): the task this one is a candidate of. */
  candidateOf?: string;
  /** A candidate's gates, run in its own worktree after its last completed attempt (candidate_gated). */
  gates?: Array<{ command: string; exitCode: number | null; timedOut: boolean }>;
  /** A select task's pick among its candidates, and why (candidate_picked). */
  pick?: { candidate: string; reasons: string[] };
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
  /** `cached`: of the input, served from the providers' prompt caches. */
  tokens: { input: number; output: number; cached?: number };
}

export interface RunUsage {
  run: UsageTotals;
  byStage: Record<string, UsageTotals>;
  byAgent: Record<string, UsageTotals>;
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
  lastDefects: Array<{ id: string; description: string; by?: string }>;
  /** The last verify pass: each finder's verdict (the verifier, each reviewer) and the union of their defects (verify.ts). */
  verify?: { pass: string; verdicts: Array<{ by: string; verdict: string }>; defects: Defect[] };
  lastReview?: { verdict: string; reasons: string[]; iteration: number };
  /** The cost mode and the model each role runs on (run_started; stage routing). */
  costMode?: string;
  models?: Record<string, string>;
  /** After `team scale`: the workers that take work (workers_changed). */
  roster?: string[];
}

// The fold of a run's events so far: what the view is made from. Plain data, maps and sets, so that it
// can be saved in a snapshot (snapshot.ts) and carried on with the events written after it.
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
  usage: RunUsage;
  /** Each assigned task's title, by task id. */
  titles: Record<string, string>;
  /** The run_started record: an orchestrator started the run, and this is what with. */
  started?: EventOf<'run_started'>;
  current: Set<string>;
  /** The run's worker (worker-N) each task was last assigned to. */
  assigned: Map<string, string>;
  /** Each started attempt's worker by `task#attempt` (attempt_spawned); the verify gates' groups (gate_spawned). */
  handles: Map<string, LoggedHandle>;
  gateGroups: LoggedHandle[];
  git: GitFacts;
  reports: WorkerReports;
  story: RunStory;
  /** The team tools' messages, notes, reservations and request keys (issue 28). */
  team: TeamFacts;
  lastAt?: string;
  endedAt?: string;
  /** Valid events folded. */
  eventCount: number;
  /** Bad files met among the events folded. */
  problems: Problem[];
  /** Budget, spend so far and rate limits (issue 29); absent in snapshots of earlier versions. */
  spend?: SpendState;
}
