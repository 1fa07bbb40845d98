// Rate limits as the pipeline decides on them (issue 29), pure: an agent's lanes and back-off from
// the context (the arithmetic in src/rules/throttle.ts, which the fold shares), and when a limit that
// lasts gives up.
import type { PipelineContext, PipelineEvent } from './types.js';
import { DEFAULT_GIVE_UP_MS, freshThrottle, retrying as duringRetry, throttled as afterLimit, type AgentThrottle } from '../src/rules/throttle.js';

export { backoffMs, succeeded, type AgentThrottle } from '../src/rules/throttle.js';

type ThrottledEvent = Extract<PipelineEvent, { type: 'attempt.throttled' }>;

// The agent's throttle, or a fresh one with a lane per worker.
export function throttleOf(context: Pick<PipelineContext, 'throttle' | 'workers'>, agent: string): AgentThrottle {
  return context.throttle?.[agent] ?? freshThrottle(context.workers);
}

type LimitFact = Pick<ThrottledEvent, 'at' | 'jitter' | 'retry_after_ms'>;

function factOf(event: LimitFact) {
  return { at: event.at, jitter: event.jitter, ...(event.retry_after_ms !== undefined && { retryAfterMs: event.retry_after_ms }) };
}

// A rate limit that ended an attempt: the lanes halve (at least one), the back-off starts.
export function throttled(current: AgentThrottle, event: LimitFact): AgentThrottle {
  return afterLimit(current, factOf(event));
}

// A CLI's own retry: the lanes halve, the back-off starts, the streak that gives up is not counted.
export function cliRetrying(current: AgentThrottle, event: LimitFact): AgentThrottle {
  return duringRetry(current, factOf(event));
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
