// An attempt's usage as its CLI's output shows it, for `usage` reports: the session id as soon as it
// appears, and at the end the session id, cost and tokens, as the orchestrator records them in
// attempt_usage events. Its last output line, for `output-tail` reports (the live view's lane). And
// its watchdog on the worker's machine (watchLife).
import type { AgentAdapter, AgentReport, CliRetry } from '../../workers/types.js';
import { LifeSigns, lookEveryMs, silenceReason } from '../attempt/life-signs.js';
import { readBoundedOutput } from '../attempt/output.js';
import { guardCliText } from '../domain/result-guard.js';
import { lastLine } from '../sys/last-line.js';

// How often a running attempt's output is looked at for its session id, and for its last line.
const PEEK_MS = 1_000;
const TAIL_MS = 2_000;
// A lane shows one line: more is never sent.
const TAIL_CHARS = 300;
// The output's head holds the session id when the CLI prints one.
const PEEK_BYTES = 64 * 1024;

// What a usage report says: attempt_usage's fields.
export interface UsageBody {
  session_id?: string;
  cost_usd?: number;
  tokens?: { input: number; output: number };
}

// Calls `onSeen` once with the session id, as soon as the output shows it; stop() ends the looking.
export function watchSessionId(adapter: AgentAdapter, outputFile: string, onSeen: (sessionId: string) => void): { stop(): void } {
  if (!adapter.peekSessionId) return { stop: () => undefined };
  const timer = setInterval(() => {
    const id = adapter.peekSessionId?.(readBoundedOutput(outputFile, PEEK_BYTES));
    if (!id) return;
    clearInterval(timer);
    onSeen(id);
  }, PEEK_MS);
  return { stop: () => clearInterval(timer) };
}

// Calls `onLine` with the output's last line each time it changed (secrets redacted, bounded), every
// TAIL_MS while the attempt runs; stop() ends the looking.
export function watchOutputTail(outputFile: string, onLine: (line: string) => void): { stop(): void } {
  let shown = '';
  const timer = setInterval(() => {
    const line = guardCliText(lastLine(outputFile)).slice(0, TAIL_CHARS);
    if (line === '' || line === shown) return;
    shown = line;
    onLine(line);
  }, TAIL_MS);
  return { stop: () => clearInterval(timer) };
}

// The watchdog of an attempt on this machine, as the writer's own (src/attempt/watchdog.ts): once none
// of its signs of life (src/attempt/life-signs.ts) came for
// `stall.ms` (watchdog.statusCheckMs) `stall.onStall` is called once, and for `silenceMs`
// (watchdog.reassignMs) `onStop` with the watchdog's reason; a failure the adapter reads in the
// output that no retry can fix (credentials, quota, model) calls `onStop` at once. stop() ends it.
export function watchLife(attemptDir: string, adapter: AgentAdapter, silenceMs: number, onStop: (reason: string) => void, stall?: { ms: number; onStall(silentMs: number): void }, onRetry?: (retry: CliRetry) => void): { stop(): void } {
  const life = new LifeSigns(attemptDir, adapter);
  let stalled = false;
  // A rate limit the CLI retries itself: told once per episode, until its output shows progress, as
  // the writer's own watchdog tells it.
  let retrying = false;
  let stopped = false;
  const timer = setInterval(() => {
    const { silentMs, failure, retry, progressed } = life.look();
    if (failure) {
      clearInterval(timer);
      return onStop(failure);
    }
    if (progressed) retrying = false;
    if (retry && !retrying) {
      retrying = true;
      onRetry?.(retry);
    }
    // Marked stalled once, at watchdog.statusCheckMs of silence, as the writer's own watchdog does.
    if (stall && !stalled && silentMs >= stall.ms) {
      stalled = true;
      stall.onStall(silentMs);
    }
    if (silentMs < silenceMs) return;
    clearInterval(timer);
    onStop(silenceReason(silentMs, silenceMs));
  }, lookEveryMs(Math.min(silenceMs, stall?.ms ?? silenceMs)));
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      // The output's last lines, which no look read: a retry told there and not got past is told too.
      const last = life.look();
      if (last.retry && !last.progressed && !retrying) onRetry?.(last.retry);
    },
  };
}

// The usage of an ended attempt from its CLI's report, or undefined when it shows none.
export function usageOf(report: AgentReport): UsageBody | undefined {
  if (report.costUsd === undefined && report.tokens === undefined && report.sessionId === undefined) return undefined;
  return {
    ...(report.sessionId ? { session_id: report.sessionId } : {}),
    ...(report.costUsd !== undefined ? { cost_usd: report.costUsd } : {}),
    ...(report.tokens ? { tokens: report.tokens } : {}),
  };
}
