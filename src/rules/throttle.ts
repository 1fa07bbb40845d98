// The arithmetic of rate limits (issue 29), pure, shared by the pipeline machine (which decides with
// it) and the fold (which shows it): per agent, how many attempts may run at once (additive
// increase, multiplicative decrease) and until when its attempts wait (an exponential back-off with
// jitter, at least the retry-after the CLI printed).

// An agent's throttle: its lanes now, and the back-off its throttled attempts wait for.
export interface AgentThrottle {
  /** How many of its attempts may run at once. */
  lanes: number;
  /** Its attempts wait for a backoff_ended. */
  waiting: boolean;
  /** When the back-off ends (ms since the epoch), from the throttled event's time. */
  until: number;
  /** Rate limits since its last completed attempt. */
  streak: number;
  /** When the first of them came (ms since the epoch); 0 with no streak. */
  since: number;
}

// A rate limit as the log records it: when, the jitter drawn (0..1), the wait the CLI asked for.
export interface ThrottleFact {
  at: number;
  jitter: number;
  retryAfterMs?: number;
}

// The first back-off, doubled for each rate limit in a row, up to the cap.
export const FIRST_BACKOFF_MS = 1_000;
// A back-off never waits longer than this, unless a retry-after asks for more.
export const MAX_BACKOFF_MS = 120_000;
// team.rateLimitGiveUpMs for logs whose limits do not name it.
export const DEFAULT_GIVE_UP_MS = 1_800_000;

// The back-off after the streak-th rate limit in a row: half to all of the exponential step, at least the retry-after.
export function backoffMs(streak: number, jitter: number, retryAfterMs?: number): number {
  const step = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, streak - 1));
  return Math.max(retryAfterMs ?? 0, Math.round(step * (0.5 + jitter / 2)));
}

// An agent no rate limit has touched: a lane per worker.
export function freshThrottle(workers: number): AgentThrottle {
  return { lanes: workers, waiting: false, until: 0, streak: 0, since: 0 };
}

// A rate limit: the lanes halve (at least one), the back-off starts.
export function throttled(current: AgentThrottle, fact: ThrottleFact): AgentThrottle {
  const streak = current.streak + 1;
  return { lanes: Math.max(1, Math.floor(current.lanes / 2)), waiting: true, until: fact.at + backoffMs(streak, fact.jitter, fact.retryAfterMs), streak, since: current.streak === 0 ? fact.at : current.since };
}

// A CLI's own retry of a rate limit (attempt_retrying): the lanes halve and a back-off starts as
// for a limit that ended an attempt, but the streak that gives up is not counted: the attempt goes on.
export function retrying(current: AgentThrottle, fact: ThrottleFact): AgentThrottle {
  return { ...throttled(current, fact), streak: current.streak, since: current.since };
}

// A completed attempt: one more lane, up to one per worker; the streak ends.
export function succeeded(current: AgentThrottle, workers: number): AgentThrottle {
  return { ...current, lanes: Math.min(workers, current.lanes + 1), streak: 0, since: 0 };
}
