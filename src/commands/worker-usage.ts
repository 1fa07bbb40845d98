// An attempt's usage as its CLI's output shows it, for `usage` reports: the session id as soon as it
// appears, and at the end the session id, cost and tokens, as the orchestrator records them in
// attempt_usage events. And its last output line, for `output-tail` reports (the live view's lane).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter, AgentReport } from '../../workers/types.js';
import { readBoundedOutput } from '../runtime/output.js';
import { guardCliText } from '../runtime/result-guard.js';
import { lastLine } from '../watch/model.js';

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

// The files whose change is a sign of life of an attempt (its output, heartbeat and result).
const LIFE_FILES = ['output.log', 'heartbeat', 'result.json'];

// Calls `onSilent` once when none of the attempt's sign-of-life files changed for `silenceMs`
// (watchdog.reassignMs); stop() ends the looking.
export function watchSilence(attemptDir: string, silenceMs: number, onSilent: (reason: string) => void, stall?: { ms: number; onStall(silentMs: number): void }): { stop(): void } {
  const started = Date.now();
  let stalled = false;
  const shortest = Math.min(silenceMs, stall?.ms ?? silenceMs);
  const timer = setInterval(() => {
    const life = Math.max(started, ...LIFE_FILES.map((name) => mtimeOf(join(attemptDir, name))));
    const silent = Date.now() - life;
    // Marked stalled once, at watchdog.statusCheckMs of silence, as the writer's own watchdog does.
    if (stall && !stalled && silent >= stall.ms) {
      stalled = true;
      stall.onStall(silent);
    }
    if (silent < silenceMs) return;
    clearInterval(timer);
    onSilent(`watchdog: no progress for ${Math.round(silent / 1000)}s (reassign after ${Math.round(silenceMs / 1000)}s); killed`);
  }, Math.max(10, Math.min(1_000, Math.floor(shortest / 4))));
  return { stop: () => clearInterval(timer) };
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
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
