// The one watch of a running attempt, wherever it runs (this machine's runner, src/attempt/watchdog.ts,
// and a team worker's, src/team-worker/attempt.ts): from its launch to its exit, it looks at the
// attempt's signs of life (life-signs.ts), its spend (spend-read.ts), its session id and its output's
// last line, and stops it past its wall-clock cap, past the watchdog's silence, over its own spend cap
// or at a failure no retry can fix. What it sees it tells through `AttemptNews`, which each face
// records its own way (the log here, reports to the writer on a team worker); how a stop is done is
// the face's too (`halt`).
import { join } from 'node:path';
import type { AgentAdapter, AgentConfig, CliRetry, LaunchSpec, SpendSoFar, WorkerBackend, WorkerExit, WorkerHandle } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { escapeeMarker, stopEscapees } from '../../workers/escapees.js';
import { guardCliText } from '../domain/result-guard.js';
import { lastLine } from '../sys/last-line.js';
import { LifeSigns, lookEveryMs, silenceReason } from './life-signs.js';
import { readOutputHead } from './output.js';
import { SpendReader } from './spend-read.js';

// A stop the watch decides (cap, silence, spend, a failure) gives the agent this long after SIGINT.
export const WATCH_GRACE_MS = 2_000;
// The output's head holds the session id when the CLI prints one.
const PEEK_BYTES = 64 * 1024;
// A lane shows one line: more is never told, and not more often than this.
const TAIL_CHARS = 300;
const TAIL_MS = 2_000;

// What the watch needs of an attempt: its process, what it was launched with, and its limits.
export interface Watched {
  backend: WorkerBackend;
  handle: WorkerHandle;
  spec: LaunchSpec;
  adapter: AgentAdapter;
  stage: string;
  /** The agent whose spend is watched (its name in the config, and its config with its cap); none: not watched. */
  spender?: { name: string; agent: AgentConfig };
  /** When its silence counts from while it has shown no sign of life (its launch). */
  since: number;
  /** Its wall-clock cap; none: no cap. */
  capMs?: number;
  /** When its cap counts from, if not `since` (when a team worker took its job). */
  capFrom?: number;
  /** Silence after which it is marked stalled (once); none: never marked. */
  stallMs?: number;
  /** Silence after which it is stopped; none: never stopped for silence. */
  silenceMs?: number;
}

// What the watch tells its face. Every member but `halt` may be left out.
export interface AttemptNews {
  /** Stops the agent with `graceMs` between the polite request and the signals. */
  halt(graceMs: number): Promise<void>;
  /** Silent for `silentMs` (watchdog.statusCheckMs): told once. */
  stalled?(silentMs: number): void;
  /** A rate limit the CLI retries itself; `first` is the first notice of an episode (progress ends one). */
  retrying?(retry: CliRetry, first: boolean): void;
  /** The CLI's session id, once its output shows it. */
  sessionId?(id: string): void;
  /** What it spent so far, each time that changed. */
  spent?(spend: SpendSoFar): void;
  /** Its output's last line (secrets redacted, bounded), when it changed. */
  tail?(line: string): void;
  /** The watch is about to stop it for `reason`: told before the stop is done. */
  stopping?(reason: string): void;
  /** A look failed (its news could not be recorded): the watch stops looking; the attempt runs on. */
  broken?(error: Error): void;
}

// A watch under way: `exit` resolves with how the attempt ended (`stopped` and `reason` when it was
// stopped, by the watch or by `stop`).
export interface Execution {
  readonly exit: Promise<WorkerExit>;
  /** Stops the attempt for `reason` (the first reason given is the one kept); resolves once it is stopped. */
  stop(reason: string, graceMs: number): Promise<void>;
  /** Whether a stop was asked. */
  readonly stopping: boolean;
}

export function executeAttempt(w: Watched, news: AttemptNews): Execution {
  const life = new LifeSigns(w.spec.attemptDir, w.adapter, w.since);
  const outputFile = join(w.spec.attemptDir, OUTPUT_FILE);
  const spender = w.spender && new SpendReader(w.adapter, w.spender.name, w.spender.agent, outputFile);
  let stalledTold = false;
  let sessionTold = !news.sessionId || !w.adapter.peekSessionId;
  let shownTail = '';
  let tailAt = 0;
  let retrying = false;
  let stopReason: string | undefined;
  let halting: Promise<void> | undefined;
  const stop = (reason: string, graceMs: number): Promise<void> => {
    stopReason ??= reason;
    return (halting ??= news.halt(graceMs));
  };
  const tell = (retry: CliRetry) => {
    news.retrying?.(retry, !retrying);
    retrying = true;
  };
  let looking = false;
  const look = async () => {
    if (looking || halting) return;
    looking = true;
    try {
      const { silentMs: silent, failure: fatal, retry, progressed } = life.look();
      if (progressed) retrying = false;
      if (retry) tell(retry);
      const spend = spender?.look();
      if (spend?.changed) news.spent?.(spend.changed);
      if (!sessionTold) sessionTold = peekSession(w.adapter, outputFile, news);
      if (news.tail && Date.now() - tailAt >= TAIL_MS) {
        tailAt = Date.now();
        const line = guardCliText(lastLine(outputFile)).slice(0, TAIL_CHARS);
        if (line !== '' && line !== shownTail) news.tail((shownTail = line));
      }
      const ran = Date.now() - (w.capFrom ?? w.since);
      const stalled = w.stallMs !== undefined && silent >= w.stallMs && !stalledTold;
      const kill =
        fatal ??
        spend?.over ??
        (w.capMs !== undefined && ran >= w.capMs
          ? `attempt cap: ran ${Math.round(ran / 1000)}s, over the ${Math.round(w.capMs / 1000)}s allowed for ${w.stage} (team.attemptTimeoutMs); killed`
          : w.silenceMs !== undefined && silent >= w.silenceMs
            ? silenceReason(silent, w.silenceMs)
            : undefined);
      if (!stalled && !kill) return;
      // Silence may be our own pause (SIGSTOP, a laptop lid): an attempt that ended is judged by its result, never killed.
      if (!(await w.backend.isAlive(w.handle))) return;
      if (stalled) {
        stalledTold = true;
        news.stalled?.(silent);
      }
      if (kill) {
        news.stopping?.(kill);
        void stop(kill, WATCH_GRACE_MS).catch(() => undefined);
      }
    } catch (error) {
      clearInterval(timer);
      news.broken?.(error as Error);
    } finally {
      looking = false;
    }
  };
  const periods = [w.stallMs, w.silenceMs, w.capMs].filter((ms): ms is number => ms !== undefined);
  const timer = setInterval(() => void look(), lookEveryMs(periods.length > 0 ? Math.min(...periods) : Infinity));
  const exit = (async () => {
    try {
      const ended = await w.backend.wait(w.handle, w.spec);
      // The output's last lines, which no look read: a retry told there, and not got past, is told before the end is.
      if (!looking) {
        const last = life.look();
        if (last.retry && !last.progressed) tell(last.retry);
      }
      if (halting) await halting;
      return stopReason ? { ...ended, stopped: true, reason: stopReason } : ended;
    } finally {
      clearInterval(timer);
    }
  })();
  return {
    exit,
    stop,
    get stopping() {
      return halting !== undefined;
    },
  };
}

// Stops what the attempt's agent started that left its process group (setsid), once it ended;
// `gatherMs`: how long to wait for other attempts' ends, to share their look at /proc.
export function stopAttemptEscapees(runId: string, taskId: string, attempt: number, handle: WorkerHandle, gatherMs = 0): Promise<number> {
  return stopEscapees(escapeeMarker(runId, taskId, attempt, handle), gatherMs);
}

// Tells the CLI's session id when the output's head shows it; whether it did.
function peekSession(adapter: AgentAdapter, outputFile: string, news: AttemptNews): boolean {
  const id = adapter.peekSessionId?.(readOutputHead(outputFile, PEEK_BYTES));
  if (!id) return false;
  news.sessionId?.(id);
  return true;
}
