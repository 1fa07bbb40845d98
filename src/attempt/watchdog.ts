// Waits for a worker while watching for signs of life (progress in its output, heartbeat,
// result); one that shows none (silent, or only retry notices) is marked stalled, then killed.
// An attempt past its wall-clock cap is killed, and one whose CLI shows a failure no retry can
// fix is stopped at once. Aborting (cancel) stops it with the configured grace.
import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, CliRetry, LaunchSpec, WorkerExit, WorkerHandle } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { attemptCapMs } from './cap.js';
import { LifeSigns, lookEveryMs, silenceReason } from './life-signs.js';
import { SpendWatch } from './spend-watch.js';
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
import { openRegularFile } from '../sys/regular-file.js';

// A stalled worker killed by the watchdog gets this long to go after SIGINT.
const WATCHDOG_GRACE_MS = 2_000;

// Resolves with how the worker ended; `stopped` is set when we ended it (watchdog or cancel).
export async function watchWorker(run: WatchParts, handle: WorkerHandle, spec: LaunchSpec, input: AttemptInput, signal: AbortSignal, adapter: AgentAdapter): Promise<WorkerExit> {
  const backend = run.registry.backendOf(handle);
  const { statusCheckMs, reassignMs } = run.limits;
  const started = Date.now();
  const capMs = attemptCapMs(run.config, input.stage);
  const life = new LifeSigns(spec.attemptDir, adapter, started);
  const spend = new SpendWatch(run, input, adapter, resolveAgent(run.config, input.agent).agent, spec.attemptDir);
  let stalledNoted = false;
  let sessionNoted = false;
  // A rate limit the CLI retries itself: one attempt_retrying per episode, until its output shows progress.
  let retrying = false;
  let stopping: Promise<void> | undefined;
  let stopReason: string | undefined;
  // Stopping is an effect: the step that asked for it (and its records) is in the log first.
  const stop = (reason: string, graceMs: number) => {
    stopReason ??= reason;
    stopping ??= run.cancel.track(run.events.settled().then(() => backend.stop(handle, { graceMs })));
  };
  // A forced cancel while stopping: stop again with no grace (SIGTERM now, then SIGKILL).
  const offForce = run.cancel.onForce(() => {
    if (stopping) void run.cancel.track(backend.stop(handle, { graceMs: 0 }));
  });
  const onAbort = () => stop('cancel', run.cancel.force ? 0 : run.config.team.shutdownTimeoutMs);
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  let looking = false;
  // One look at the worker; a failure (the log cannot be written) stops the run, never the process.
  const look = async () => {
    if (looking || stopping) return;
    looking = true;
    try {
      const { silentMs: silent, failure: fatal, retry, progressed } = life.look();
      if (progressed) retrying = false;
      if (retry) retrying = noteRetry(run, input, retry, retrying);
      const failure = fatal ?? spend.look();
      const ran = Date.now() - started;
      if (!sessionNoted && adapter.peekSessionId) sessionNoted = noteSessionId(run, input, adapter, spec.attemptDir);
      const stalled = silent >= statusCheckMs && !stalledNoted;
      const kill =
        failure ??
        (ran >= capMs
          ? `attempt cap: ran ${Math.round(ran / 1000)}s, over the ${Math.round(capMs / 1000)}s allowed for ${input.stage} (team.attemptTimeoutMs); killed`
          : silent >= reassignMs
            ? silenceReason(silent, reassignMs)
            : undefined);
      if (!stalled && !kill) return;
      // Silence may be our own pause (SIGSTOP, a laptop lid): an attempt that ended is judged by its result, never killed.
      if (!(await backend.isAlive(handle))) return;
      if (stalled) {
        stalledNoted = true;
        run.events.append({ event: 'attempt_stalled', task_id: input.taskId, attempt: input.attempt, silent_ms: silent });
        run.progress.emit({ type: 'attempt.stalled', task: input.taskId, attempt: input.attempt, silentMs: silent }, `… ${input.taskId} a${input.attempt} stalled: no progress for ${Math.round(silent / 1000)}s`);
      }
      if (kill) {
        // The kill is in the log before it is done.
        run.events.append({ event: 'attempt_stopping', task_id: input.taskId, attempt: input.attempt, by: 'watchdog', reason: kill });
        stop(kill, WATCHDOG_GRACE_MS);
      }
    } catch (error) {
      clearInterval(timer);
      run.cancel.fail(error as Error);
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), lookEveryMs(statusCheckMs));
  try {
    const exit = await backend.wait(handle, spec);
    // The output's last lines, which no look read: a retry told there is told before the end is.
    if (!looking) {
      const last = life.look();
      if (last.retry && !last.progressed) noteRetry(run, input, last.retry, retrying);
    }
    if (stopping) await stopping;
    return stopReason ? { ...exit, stopped: true, reason: stopReason } : exit;
  } finally {
    clearInterval(timer);
    offForce();
    signal.removeEventListener('abort', onAbort);
  }
}

// Tells a retry of the CLI's own live ("worker-1: claude is retrying a rate limit, 3 of 10"), and
// records the first of an episode, which slows the agent's other attempts (its lanes and back-off).
function noteRetry(run: WatchParts, input: AttemptInput, retry: CliRetry, retrying: boolean): boolean {
  tellRetry(run, input, retry);
  if (retrying) return true;
  run.events.commit(retryingEvent(input, retry));
  return true;
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

// The record of a retry episode's first notice: the machine slows the agent's other attempts.
export function retryingEvent(input: Pick<AttemptInput, 'taskId' | 'attempt' | 'agent'>, retry: CliRetry) {
  return {
    event: 'attempt_retrying' as const,
    task_id: input.taskId,
    attempt: input.attempt,
    agent: input.agent,
    reason: retry.reason,
    ...(retry.n !== undefined && { retry: retry.n }),
    ...(retry.max !== undefined && { of: retry.max }),
    ...(retry.delayMs !== undefined && { retry_after_ms: retry.delayMs }),
    jitter: Math.random(),
  };
}

// Records the CLI's session id as soon as its output shows it.
function noteSessionId(run: WatchParts, input: AttemptInput, adapter: AgentAdapter, dir: string): boolean {
  const id = adapter.peekSessionId?.(readHead(join(dir, OUTPUT_FILE)));
  if (!id) return false;
  run.events.append({ event: 'attempt_usage', task_id: input.taskId, attempt: input.attempt, stage: input.stage, agent: input.agent, session_id: id });
  return true;
}

function readHead(file: string): string {
  try {
    return readFileSyncHead(file, 64 * 1024);
  } catch {
    return '';
  }
}

function readFileSyncHead(file: string, bytes: number): string {
  const fd = openRegularFile(file);
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
