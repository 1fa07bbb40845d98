// How a run ends, stops or is cancelled, and the words it ends with. Pure.
import { raiseCommand } from '../src/rules/budget-hint.js';
import { WORKER_FAILURE_LIMIT } from './schedule.js';
import { TaskDraft } from './task-index.js';
import * as steps from './steps.js';
import type { Step } from './steps.js';
import type { PipelineContext, PipelineEvent } from './types.js';

type FinishEvent = Extract<PipelineEvent, { type: 'task.finished' }>;

// Where the run goes after a verify handoff, in words for the handoff's title.
export function nextAfterVerify(c: PipelineContext): string {
  if (c.verdict === 'pass') return c.mode === 'ralph' ? 'ralph-review' : 'end (completed)';
  return nextAfterRejection(c);
}

export function nextAfterReview(c: PipelineContext): string {
  return c.reviewReasons.length === 0 && c.verdict === 'pass' ? 'end (completed)' : nextAfterRejection(c);
}

// The fix loop's rule, in one place: after a verify that failed or a review that did not approve,
// a fix loop while any is left, else (ralph) the next iteration while any is left, else the run
// fails. The machine's guards and the handoff's words both read it.
export function afterRejection(c: PipelineContext): 'fix' | 'next-iteration' | 'failed' {
  if (c.loop < c.limits.maxFixLoops) return 'fix';
  if (c.mode === 'ralph' && c.iteration < c.limits.maxIterations) return 'next-iteration';
  return 'failed';
}

function nextAfterRejection(c: PipelineContext): string {
  const next = afterRejection(c);
  return next === 'fix' ? 'team-fix' : next === 'next-iteration' ? `team-plan (iteration ${c.iteration + 1})` : 'end (failed)';
}

export function noteStageFailure(c: PipelineContext, e: FinishEvent): Step {
  const stage = c.stageAttempt?.stage ?? 'team-plan';
  return { context: { reason: `${stage} failed after ${c.stageAttempt?.failures ?? 0} failed attempt(s): ${e.evidence}`, endingStage: stage } };
}

export function noteFixLoopsSpent(c: PipelineContext): Step {
  const defects = c.defects.map((d) => `${d.id}: ${d.description}`).join('; ');
  return { context: { reason: `verify failed with ${c.loop} of ${c.limits.maxFixLoops} fix loops spent; last defects: ${defects}` } };
}

export function noteIterationsSpent(c: PipelineContext): Step {
  return { context: { reason: `not approved after ${c.iteration} of ${c.limits.maxIterations} iterations; last reasons: ${c.reviewReasons.join('; ')}` } };
}

// A failure no retry can fix (credentials, quota, model): the run fails with the CLI's words.
export function noteNotRetryable(c: PipelineContext, e: FinishEvent): Step {
  return { context: { reason: `${e.task_id} a${e.attempt} failed and no retry can fix it: ${e.evidence}`, endingStage: c.stage } };
}

// Every worker failed its share of tasks: nothing can run any more, so verify is not tried.
export function noteNoWorkerLeft(c: PipelineContext): Step {
  const spent = Object.entries(c.workerFailures).map(([worker, count]) => `${worker}: ${count}`).join(', ');
  const undone = c.order.filter((id) => c.tasks[id]!.pass === c.loop && c.tasks[id]!.status !== 'completed');
  return { context: { reason: `no worker left: every worker failed ${WORKER_FAILURE_LIMIT} tasks (${spent}); not done: ${undone.join(', ')}`, endingStage: c.stage } };
}

// The run is failing: every attempt still running is stopped (each reports itself interrupted).
export function stopRunning(c: PipelineContext): Step {
  return { stop: runningAttemptIds(c) };
}

// The run needs a human: interrupted attempts wait for `team resume --retry-interrupted`.
export function stopRun(c: PipelineContext): Step {
  const waiting = c.order.filter((id) => c.tasks[id]!.status === 'interrupted').map((id) => `${id}#a${c.tasks[id]!.attempt}`);
  // A spent budget (issue 29): a raised one goes on, and tries the attempts it stopped again.
  const reason = c.budgetHold
    ? `${c.budgetHold}; ${c.quotaHold ? '`team resume` once it is back goes on' : `${raiseCommand(c.budgetParts)} raises it and goes on`}`
    : `interrupted attempts need a decision: ${waiting.join(', ')}; \`team resume --retry-interrupted\` retries them`;
  return { context: { reason }, records: [{ event: 'run_stopped', reason, attempts: waiting }] };
}

// Cancel: stop every running attempt (their effects end them and report them interrupted).
export function beginCancel(c: PipelineContext, e: PipelineEvent): Step {
  const force = e.type === 'cancel.requested' ? e.force : false;
  return { context: { endingStage: c.stage, reason: 'cancelled by request', cancelForce: force }, stop: runningAttemptIds(c) };
}

export function runningAttemptIds(c: PipelineContext): string[] {
  const ids = c.taskIndex.running.map((id) => steps.attemptActorId(id, c.tasks[id]!.attempt));
  if (c.stageAttempt?.status === 'running') ids.push(steps.attemptActorId(c.stageAttempt.id, c.stageAttempt.attempt));
  for (const r of c.reviewers) if (r.status === 'running') ids.push(steps.attemptActorId(r.id, r.attempt));
  return ids;
}

// While cancelling, a finished attempt is only noted: nothing new starts.
export function noteCancelledFinish(c: PipelineContext, e: FinishEvent): Step {
  const status = e.status === 'completed' || e.status === 'failed' ? e.status : 'interrupted';
  if (c.stageAttempt && c.stageAttempt.id === e.task_id && c.stageAttempt.attempt === e.attempt) {
    return { context: { stageAttempt: { ...c.stageAttempt, status, evidence: e.evidence } } };
  }
  if (c.reviewers.some((r) => r.id === e.task_id && r.attempt === e.attempt)) {
    return { context: { reviewers: c.reviewers.map((r) => (r.id === e.task_id && r.attempt === e.attempt ? { ...r, status, evidence: e.evidence } : r)) } };
  }
  const task = c.tasks[e.task_id];
  if (!task || task.attempt !== e.attempt) return {};
  const draft = new TaskDraft(c);
  draft.put({ ...task, status, evidence: e.evidence, artifacts: e.artifacts });
  return { context: draft.changes };
}

// One line for run_completed / run_failed.
export function summarize(c: PipelineContext, outcome: string): string {
  const tasks = Object.values(c.tasks);
  const done = tasks.filter((t) => t.status === 'completed').length;
  const iteration = c.mode === 'ralph' ? `, iteration ${c.iteration} of ${c.limits.maxIterations}` : '';
  return `${outcome}: ${done} of ${tasks.length} tasks completed, ${c.loop} fix loop(s)${iteration}`;
}
