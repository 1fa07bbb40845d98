// Rate limits as the pipeline sees them (issue 29), pure: per agent, how many attempts may run at
// once (additive increase, multiplicative decrease), until when its attempts wait (an exponential
// back-off with jitter, at least the retry-after the CLI printed), and when a limit that lasts gives up.
import type { PipelineContext, PipelineEvent } from './types.js';

// An agent's throttle: its lanes now, and the back-off its throttled attempts wait for.
export interface AgentThrottle {
  /** How many of its attempts may run at once; absent: as many as the run has workers. */
  lanes: number;
  /** Its attempts wait for a back-off_ended. */
  waiting: boolean;
  /** When the back-off ends (ms since the epoch), from the throttled event's time. */
  until: number;
  /** Rate limits since its last completed attempt. */
  streak: number;
  /** When the first of them came (ms since the epoch). */
  since: number;
}

type ThrottledEvent = Extract<PipelineEvent, { type: 'attempt.throttled' }>;

// The first back-off, doubled for each rate limit in a row, up to the cap.
export const FIRST_BACKOFF_MS = 1_000;
// A back-off never waits longer than this (a retry-after may ask for more, and gets it).
export const MAX_BACKOFF_MS = 120_000;
// The default of team.rateLimitGiveUpMs, for logs whose limits do not name it.
export const DEFAULT_GIVE_UP_MS = 1_800_000;

// The back-off after the streak-th rate limit in a row: half to all of the exponential step (jitter
// 0..1), at least the retry-after.
export function backoffMs(streak: number, jitter: number, retryAfterMs?: number): number {
  const step = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, streak - 1));
  return Math.max(retryAfterMs ?? 0, Math.round(step * (0.5 + jitter / 2)));
}

// The agent's throttle, or a fresh one with a lane per worker.
export function throttleOf(context: Pick<PipelineContext, 'throttle' | 'workers'>, agent: string): AgentThrottle {
  return context.throttle?.[agent] ?? { lanes: context.workers, waiting: false, until: 0, streak: 0, since: 0 };
}

// A rate limit: the lanes halve (at least one), the back-off starts.
export function throttled(current: AgentThrottle, event: ThrottledEvent): AgentThrottle {
  const streak = current.streak + 1;
  return { lanes: Math.max(1, Math.floor(current.lanes / 2)), waiting: true, until: event.at + backoffMs(streak, event.jitter, event.retry_after_ms), streak, since: current.streak === 0 ? event.at : current.since };
}

// A completed attempt: one more lane, up to one per worker; the streak ends.
export function succeeded(current: AgentThrottle, workers: number): AgentThrottle {
  return { ...current, lanes: Math.min(workers, current.lanes + 1), streak: 0, since: 0 };
}

// The rate limit has lasted past team.rateLimitGiveUpMs: the run gives up.
export function givesUp(context: Pick<PipelineContext, 'throttle' | 'workers' | 'limits'>, event: ThrottledEvent): boolean {
  const current = throttleOf(context, event.agent);
  const since = current.streak === 0 ? event.at : current.since;
  return event.at - since >= (context.limits.rateLimitGiveUpMs ?? DEFAULT_GIVE_UP_MS);
}

// The words a run that gives up ends with.
export function giveUpReason(context: Pick<PipelineContext, 'throttle' | 'workers' | 'limits'>, event: ThrottledEvent): string {
  const current = throttleOf(context, event.agent);
  const minutes = ((event.at - (current.since || event.at)) / 60_000).toFixed(1);
  const cap = context.limits.rateLimitGiveUpMs ?? DEFAULT_GIVE_UP_MS;
  return `rate limited: ${event.agent} was still refused after ${minutes} min (${current.streak + 1} rate limits in a row; team.rateLimitGiveUpMs is ${cap} ms): ${event.reason}`;
}

// Whether one more attempt of the agent may start: no back-off, and a lane free.
export function laneFree(context: Pick<PipelineContext, 'throttle' | 'workers'>, agent: string, running: number): boolean {
  const current = throttleOf(context, agent);
  return !current.waiting && running < current.lanes;
}
