// What a running attempt tells its run, as the log's own events: built here once, for both faces of
// the attempt — this machine's watch appends them (watchdog.ts, spend-watch.ts, conclude.ts), a team
// worker posts them to the run's writer as they are (src/team-worker/attempt.ts), which checks each
// like an agent's text and appends it (src/remote/worker-news.ts). No second vocabulary.
import type { AttemptInput } from '../../machines/types.js';
import type { AgentReport, CliRetry, SpendSoFar, WorkerHandle } from '../../workers/types.js';
import type { EventOf } from '../log/schema.js';
import { plausibleSpend } from './spend-read.js';

// Whose news it is: the attempt, its stage and agent (by name), and the run's worker it runs as.
export type AttemptWho = Pick<AttemptInput, 'taskId' | 'attempt' | 'stage' | 'agent' | 'worker'>;

// An event of a running attempt, without what the log adds (its time and run).
export type AttemptNews<N extends NewsName> = Omit<EventOf<N>, 'at' | 'run_id'>;

// The events a team worker may post for an attempt it holds; the writer admits no other.
export const NEWS_EVENTS = ['attempt_taken', 'attempt_usage', 'attempt_spend', 'attempt_stalled', 'attempt_retrying'] as const;
export type NewsName = (typeof NEWS_EVENTS)[number];

const ref = (who: AttemptWho) => ({ task_id: who.taskId, attempt: who.attempt });

// A team worker took the attempt and started its agent on its machine (the handle: never signalled by the writer).
// Its `report` (the seq of the worker's report it came in) is the writer's to add.
export function takenEvent(who: AttemptWho, taker: { workerId: string; host: string; handle: WorkerHandle }): Omit<AttemptNews<'attempt_taken'>, 'report'> {
  const { handle } = taker;
  return { event: 'attempt_taken', ...ref(who), worker: who.worker, worker_id: taker.workerId, host: taker.host, pid: handle.pid, pid_start: handle.pidStart, boot_id: handle.bootId ?? '' };
}

// The attempt's output showed no progress for `silentMs`.
export function stalledEvent(who: AttemptWho, silentMs: number): AttemptNews<'attempt_stalled'> {
  return { event: 'attempt_stalled', ...ref(who), silent_ms: silentMs };
}

// The CLI named its session (told as soon as the output shows it: a resume can go on from it).
export function sessionEvent(who: AttemptWho, sessionId: string): AttemptNews<'attempt_usage'> {
  return { event: 'attempt_usage', ...ref(who), stage: who.stage, agent: who.agent, session_id: sessionId };
}

// What the attempt spent so far (totals), as the watch reads it while the agent works.
export function spendEvent(who: AttemptWho, spend: SpendSoFar): AttemptNews<'attempt_spend'> {
  return { event: 'attempt_spend', ...ref(who), stage: who.stage, agent: who.agent, ...(spend.costUsd !== undefined && { cost_usd: spend.costUsd }), ...(spend.tokens && { tokens: spend.tokens }) };
}

// The ended attempt's usage from its CLI's report; undefined when it shows none. An amount that is
// not a finite zero or more (an agent's negative cost would shrink what the run spent) is left out.
export function usageEvent(who: AttemptWho, report: Pick<AgentReport, 'sessionId' | 'costUsd' | 'tokens'>): AttemptNews<'attempt_usage'> | undefined {
  const spend = plausibleSpend(report);
  if (!spend && report.sessionId === undefined) return undefined;
  return {
    event: 'attempt_usage',
    ...ref(who),
    stage: who.stage,
    agent: who.agent,
    ...(report.sessionId ? { session_id: report.sessionId } : {}),
    ...(spend?.costUsd !== undefined ? { cost_usd: spend.costUsd } : {}),
    ...(spend?.tokens ? { tokens: spend.tokens } : {}),
  };
}

// The first notice of an episode of the CLI's own retries: the machine slows the agent's other attempts.
export function retryingEvent(who: Pick<AttemptWho, 'taskId' | 'attempt' | 'agent'>, retry: CliRetry): AttemptNews<'attempt_retrying'> {
  return {
    event: 'attempt_retrying',
    task_id: who.taskId,
    attempt: who.attempt,
    agent: who.agent,
    reason: retry.reason,
    ...(retry.n !== undefined && { retry: retry.n }),
    ...(retry.max !== undefined && { of: retry.max }),
    ...(retry.delayMs !== undefined && { retry_after_ms: retry.delayMs }),
    jitter: Math.random(),
  };
}
