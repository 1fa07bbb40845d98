// Waits for a worker while watching for signs of life (progress in its output, heartbeat,
// result); one that shows none (silent, or only retry notices) is marked stalled, then killed.
// An attempt past its wall-clock cap is killed, and one whose CLI shows a failure no retry can
// fix is stopped at once. Aborting (cancel) stops it with the configured grace.
import { closeSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, LaunchSpec, WorkerExit, WorkerHandle } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { attemptCapMs } from './attempt-cap.js';
import { OutputLines } from './output-lines.js';
import { guardCliText } from './result-guard.js';
import type { RunSession } from './session.js';
import { openRegularFile } from '../checkpoint/regular-file.js';

// Files whose change is a sign of life; the output file is one unless the adapter reads it.
const LIFE_FILES = ['heartbeat', 'result.json'];
// The watchdog looks at most this often, and at least four times per status-check period.
const MAX_TICK_MS = 1_000;
// A stalled worker killed by the watchdog gets this long to go after SIGINT.
const WATCHDOG_GRACE_MS = 2_000;

// Resolves with how the worker ended; `stopped` is set when we ended it (watchdog or cancel).
export async function watchWorker(session: RunSession, handle: WorkerHandle, spec: LaunchSpec, input: AttemptInput, signal: AbortSignal, adapter: AgentAdapter): Promise<WorkerExit> {
  const backend = session.registry.backendOf(handle);
  const { statusCheckMs, reassignMs } = session.limits;
  const tick = Math.max(10, Math.min(MAX_TICK_MS, Math.floor(statusCheckMs / 4)));
  const started = Date.now();
  const capMs = attemptCapMs(session.config, input.stage);
  const output = new OutputLines(join(spec.attemptDir, OUTPUT_FILE));
  const lifeFiles = adapter.scan ? LIFE_FILES : [...LIFE_FILES, OUTPUT_FILE];
  let lastLife = lastSignOfLife(spec.attemptDir, lifeFiles) ?? started;
  let stalledNoted = false;
  let sessionNoted = false;
  let stopping: Promise<void> | undefined;
  let stopReason: string | undefined;
  // Stopping is an effect: the step that asked for it (and its records) is in the log first.
  const stop = (reason: string, graceMs: number) => {
    stopReason ??= reason;
    stopping ??= session.cancel.track(session.events.settled().then(() => backend.stop(handle, { graceMs })));
  };
  // A forced cancel while stopping: stop again with no grace (SIGTERM now, then SIGKILL).
  const offForce = session.cancel.onForce(() => {
    if (stopping) void session.cancel.track(backend.stop(handle, { graceMs: 0 }));
  });
  const onAbort = () => stop('cancel', session.cancel.force ? 0 : session.config.team.shutdownTimeoutMs);
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  let looking = false;
  // One look at the worker; a failure (the log cannot be written) stops the run, never the process.
  const look = async () => {
    if (looking || stopping) return;
    looking = true;
    try {
      const life = lastSignOfLife(spec.attemptDir, lifeFiles);
      if (life !== undefined && life > lastLife) lastLife = life;
      const signals = adapter.scan?.(output.readNew());
      if (signals?.progress) lastLife = Date.now();
      const ran = Date.now() - started;
      const silent = Date.now() - lastLife;
      if (!sessionNoted && adapter.peekSessionId) sessionNoted = noteSessionId(session, input, adapter, spec.attemptDir);
      const stalled = silent >= statusCheckMs && !stalledNoted;
      const kill = signals?.failure
        ? `${guardCliText(signals.failure.reason)} (stopped early: no retry can fix it)`
        : ran >= capMs
          ? `attempt cap: ran ${Math.round(ran / 1000)}s, over the ${Math.round(capMs / 1000)}s allowed for ${input.stage} (team.attemptTimeoutMs); killed`
          : silent >= reassignMs
            ? `watchdog: no progress for ${Math.round(silent / 1000)}s (reassign after ${Math.round(reassignMs / 1000)}s); killed`
            : undefined;
      if (!stalled && !kill) return;
      // Silence may be our own pause (SIGSTOP, a laptop lid): an attempt that ended is judged by its result, never killed.
      if (!(await backend.isAlive(handle))) return;
      if (stalled) {
        stalledNoted = true;
        session.events.append({ event: 'attempt_stalled', task_id: input.taskId, attempt: input.attempt, silent_ms: silent });
        session.progress.emit({ type: 'attempt.stalled', task: input.taskId, attempt: input.attempt, silentMs: silent }, `… ${input.taskId} a${input.attempt} stalled: no progress for ${Math.round(silent / 1000)}s`);
      }
      if (kill) {
        // The kill is in the log before it is done.
        session.events.append({ event: 'attempt_stopping', task_id: input.taskId, attempt: input.attempt, by: 'watchdog', reason: kill });
        stop(kill, WATCHDOG_GRACE_MS);
      }
    } catch (error) {
      clearInterval(timer);
      session.cancel.fail(error as Error);
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), tick);
  try {
    const exit = await backend.wait(handle, spec);
    if (stopping) await stopping;
    return stopReason ? { ...exit, stopped: true, reason: stopReason } : exit;
  } finally {
    clearInterval(timer);
    offForce();
    signal.removeEventListener('abort', onAbort);
  }
}

// The latest modification time among the attempt's sign-of-life files.
function lastSignOfLife(dir: string, names: string[]): number | undefined {
  let latest: number | undefined;
  for (const name of names) {
    try {
      const mtime = statSync(join(dir, name)).mtimeMs;
      latest = latest === undefined ? mtime : Math.max(latest, mtime);
    } catch {
      // Not there yet.
    }
  }
  return latest;
}

// Records the CLI's session id as soon as its output shows it.
function noteSessionId(session: RunSession, input: AttemptInput, adapter: AgentAdapter, dir: string): boolean {
  const id = adapter.peekSessionId?.(readHead(join(dir, OUTPUT_FILE)));
  if (!id) return false;
  session.events.append({ event: 'attempt_usage', task_id: input.taskId, attempt: input.attempt, stage: input.stage, agent: input.agent, session_id: id });
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
