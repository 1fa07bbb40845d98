// This machine's face of the attempt's watch (execute.ts): what the watch sees goes to the run's log
// and live lines, its stops are effects of the run (the step that asked for one is in the log first),
// and a cancel (the signal) stops the attempt with the configured grace, at once when forced.
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, CliRetry, LaunchSpec, WorkerExit, WorkerHandle } from '../../workers/types.js';
import { attemptCapMs } from './cap.js';
import { executeAttempt } from './execute.js';
import { recordSpend } from './spend-watch.js';
import { retryingEvent, sessionEvent, stalledEvent } from './news.js';
import { resolveAgent } from './prepare/agents.js';
import type { TeamConfig } from '../../config/schema.js';
import type { Limits } from '../log/schema.js';
import type { CancelScope } from '../session/effects.js';
import type { EventLog } from '../session/event-log.js';
import type { Progress } from '../session/progress.js';
import type { WorkerRegistry } from '../session/registry.js';

// What the watchdog uses of a run: its log, progress, workers, cancel scope, config and limits.
export interface WatchParts {
  readonly events: EventLog;
  readonly progress: Progress;
  readonly registry: WorkerRegistry;
  readonly cancel: CancelScope;
  readonly config: TeamConfig;
  readonly limits: Limits;
}

// Resolves with how the worker ended; `stopped` is set when we ended it (watchdog or cancel).
export async function watchWorker(run: WatchParts, handle: WorkerHandle, spec: LaunchSpec, input: AttemptInput, signal: AbortSignal, adapter: AgentAdapter): Promise<WorkerExit> {
  const backend = run.registry.backendOf(handle);
  const { statusCheckMs, reassignMs } = run.limits;
  const execution = executeAttempt(
    {
      backend,
      handle,
      spec,
      adapter,
      stage: input.stage,
      spender: { name: input.agent, agent: resolveAgent(run.config, input.agent).agent },
      since: Date.now(),
      capMs: attemptCapMs(run.config, input.stage),
      stallMs: statusCheckMs,
      silenceMs: reassignMs,
    },
    {
      halt: (graceMs) => run.cancel.track(run.events.settled().then(() => backend.stop(handle, { graceMs }))),
      stalled: (silentMs) => {
        run.events.append(stalledEvent(input, silentMs));
        run.progress.emit({ type: 'attempt.stalled', task: input.taskId, attempt: input.attempt, silentMs }, `… ${input.taskId} a${input.attempt} stalled: no progress for ${Math.round(silentMs / 1000)}s`);
      },
      // Every notice is told live; the first of an episode is recorded, which slows the agent's other attempts.
      retrying: (retry, first) => {
        tellRetry(run, input, retry);
        if (first) run.events.commit(retryingEvent(input, retry));
      },
      sessionId: (id) => run.events.append(sessionEvent(input, id)),
      spent: (spend) => recordSpend(run, input, spend),
      // The kill is in the log before it is done.
      stopping: (reason) => run.events.append({ event: 'attempt_stopping', task_id: input.taskId, attempt: input.attempt, by: 'watchdog', reason }),
      // A look that cannot record (the log cannot be written) stops the run, never the process.
      broken: (error) => run.cancel.fail(error),
    },
  );
  // A forced cancel while stopping: stop again with no grace (SIGTERM now, then SIGKILL).
  const offForce = run.cancel.onForce(() => {
    if (execution.stopping) void run.cancel.track(backend.stop(handle, { graceMs: 0 }));
  });
  const onAbort = () => void execution.stop('cancel', run.cancel.force ? 0 : run.config.team.shutdownTimeoutMs);
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await execution.exit;
  } finally {
    offForce();
    signal.removeEventListener('abort', onAbort);
  }
}

// The live line of a CLI's own retry (a team worker's too, src/remote/worker-news.ts).
export function tellRetry(run: Pick<WatchParts, 'progress'>, input: Pick<AttemptInput, 'taskId' | 'attempt' | 'worker' | 'agent'>, retry: CliRetry): void {
  const of = retry.n !== undefined ? `, ${retry.n}${retry.max !== undefined ? ` of ${retry.max}` : ''}` : '';
  const wait = retry.delayMs !== undefined ? `, next in ${Math.max(1, Math.round(retry.delayMs / 1000))} s` : '';
  run.progress.emit(
    { type: 'attempt.retrying', task: input.taskId, attempt: input.attempt, worker: input.worker, agent: input.agent, reason: retry.reason, ...(retry.n !== undefined && { retry: retry.n }), ...(retry.max !== undefined && { of: retry.max }) },
    `⟳ ${input.worker}: ${input.agent} is retrying a rate limit${of} (${input.taskId} a${input.attempt}: ${retry.reason}${wait})`,
  );
}
