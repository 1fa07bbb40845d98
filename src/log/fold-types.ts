// The parts of a run's view (fold.ts): tasks and their attempts, conflicts, usage, pipeline progress.
import type { ApprovalView } from './approvals.js';

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
  lastDefects: Array<{ id: string; description: string }>;
  lastReview?: { verdict: string; reasons: string[]; iteration: number };
}
