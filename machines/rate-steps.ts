// The pipeline's steps for rate limits (issue 29): a throttled attempt halves its agent's lanes and
// starts a back-off; its end is no failure; the back-off's end lets its attempts start again.
import { agentFor } from './schedule.js';
import { cliRetrying, givesUp, giveUpReason, succeeded, throttled, throttleOf, type AgentThrottle } from './throttle.js';
import { TaskDraft } from './task-index.js';
import type { Step } from './steps.js';
import * as steps from './steps.js';
import type { PipelineContext, PipelineEvent } from './types.js';

type ThrottledEvent = Extract<PipelineEvent, { type: 'attempt.throttled' }>;
type RetryingEvent = Extract<PipelineEvent, { type: 'attempt.retrying' }>;
type FinishEvent = Extract<PipelineEvent, { type: 'task.finished' }>;

function withThrottle(context: PipelineContext, agent: string, value: AgentThrottle): Partial<PipelineContext> {
  return { throttle: { ...context.throttle, [agent]: value } };
}

// A rate-limited attempt: its agent's lanes halve and its back-off starts; the attempt is marked so
// that its end counts as no failure.
export function noteThrottle(context: PipelineContext, event: ThrottledEvent): Step {
  const changes: Partial<PipelineContext> = withThrottle(context, event.agent, throttled(throttleOf(context, event.agent), event));
  const current = context.stageAttempt;
  if (current && current.id === event.task_id && current.attempt === event.attempt && current.status === 'running') changes.stageAttempt = { ...current, throttled: true };
  const task = context.tasks[event.task_id];
  if (task && task.status === 'running' && task.attempt === event.attempt) {
    const draft = new TaskDraft(context);
    draft.put({ ...task, throttled: event.attempt });
    Object.assign(changes, draft.changes);
  }
  return { context: changes };
}

// A CLI retries a rate limit itself: its agent's lanes halve and a back-off starts, so that the
// other workers slow down before it gives up; the attempt goes on, unmarked.
export function noteRetrying(context: PipelineContext, event: RetryingEvent): Step {
  return { context: withThrottle(context, event.agent, cliRetrying(throttleOf(context, event.agent), event)) };
}

// The limit has lasted past team.rateLimitGiveUpMs: the run fails, and says so.
export function isGiveUp(context: PipelineContext, event: ThrottledEvent): boolean {
  return givesUp(context, event);
}

export function noteGiveUp(context: PipelineContext, event: ThrottledEvent): Step {
  return { context: { reason: giveUpReason(context, event), endingStage: context.stage } };
}

// The back-off of the agent is over.
export function endBackoff(context: PipelineContext, agent: string): Step {
  const current = context.throttle?.[agent];
  if (!current?.waiting) return {};
  return { context: withThrottle(context, agent, { ...current, waiting: false }) };
}

// Whether a finished exec or fix attempt was the rate-limited one (and did not complete after all).
export function isThrottledFinish(context: PipelineContext, event: FinishEvent): boolean {
  const task = context.tasks[event.task_id];
  return event.status !== 'completed' && task !== undefined && task.status === 'running' && task.attempt === event.attempt && task.throttled === event.attempt;
}

// A rate-limited attempt ended: the task waits for its agent's back-off, nothing counted against it or its worker.
export function requeueThrottled(context: PipelineContext, event: FinishEvent): Step {
  const task = context.tasks[event.task_id]!;
  const draft = new TaskDraft(context);
  draft.put({ ...task, status: 'pending', evidence: event.evidence });
  return { context: draft.changes, stop: [steps.attemptActorId(task.id, task.attempt)] };
}

// A completed attempt gives its agent a lane back (up to one per worker).
export function noteSuccess(context: PipelineContext, event: FinishEvent): Step {
  if (event.status !== 'completed') return {};
  const task = context.tasks[event.task_id];
  const current = task && task.status === 'running' && task.attempt === event.attempt;
  const role = current ? task.role : steps.isCurrentStageAttempt(context, event) ? context.stageAttempt!.role : undefined;
  if (role === undefined) return {};
  const agent = agentFor(context, role);
  const throttle = context.throttle?.[agent];
  if (!throttle || (throttle.lanes >= context.workers && throttle.streak === 0)) return {};
  return { context: withThrottle(context, agent, succeeded(throttle, context.workers)) };
}

// The stage's rate-limited attempt ended: the stage waits for the back-off, its failures unchanged.
export function isThrottledStageFinish(context: PipelineContext, event: FinishEvent): boolean {
  return steps.isCurrentStageAttempt(context, event) && event.status !== 'completed' && context.stageAttempt!.throttled === true;
}

export function holdStageAttempt(context: PipelineContext, event: FinishEvent): Step {
  const current = context.stageAttempt!;
  return { context: { stageAttempt: { ...current, status: 'pending', evidence: event.evidence } }, stop: [steps.attemptActorId(current.id, current.attempt)] };
}

// The back-off over, the stage's waiting attempt starts again as the next attempt.
export function isHeldStageAgent(context: PipelineContext, agent: string): boolean {
  const current = context.stageAttempt;
  return current !== null && current.status === 'pending' && agentFor(context, current.role) === agent;
}

export function restartStageAttempt(context: PipelineContext): Step {
  const current = context.stageAttempt!;
  return steps.startStageAttempt(context, current.stage, { attempt: current.attempt, failures: current.failures });
}
