// An attempt's signs of life, as both watchdogs read them (the orchestrator's, watch.ts, and a team
// worker's, src/team-worker/usage.ts): progress in its output as its adapter reads it (any
// change of the output when the adapter reads none), its heartbeat and its result; and a failure
// its output shows that no retry can fix.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter, CliRetry } from '../../workers/types.js';
import { OUTPUT_FILE } from '../../workers/wrapper.js';
import { OutputLines } from './output-lines.js';
import { guardCliText } from '../domain/result-guard.js';

// Files whose change is a sign of life (progress: a note through team_progress, written once it is
// recorded); the output file is one unless the adapter reads it.
const LIFE_FILES = ['heartbeat', 'result.json', 'progress'];
// A watchdog looks at most this often, and at least four times per period it watches for.
const MAX_TICK_MS = 1_000;

export interface LifeLook {
  /** How long the attempt has shown no sign of life. */
  silentMs: number;
  /** Why it must stop now: a failure its output shows that no retry can fix. */
  failure?: string;
  /** The last notice since the last look of a rate limit the CLI retries itself. */
  retry?: CliRetry;
  /** Its output showed progress since the last look (a retry episode is over). */
  progressed?: boolean;
}

export class LifeSigns {
  private readonly output: OutputLines;
  private readonly files: string[];
  private last: number;

  // Silence counts from the attempt's last sign of life, or from `since` when it has shown none.
  constructor(
    private readonly attemptDir: string,
    private readonly adapter: AgentAdapter,
    since = Date.now(),
  ) {
    this.output = new OutputLines(join(attemptDir, OUTPUT_FILE));
    this.files = adapter.scan ? LIFE_FILES : [...LIFE_FILES, OUTPUT_FILE];
    this.last = latestChange(attemptDir, this.files) ?? since;
  }

  // One look: the files' times, and the output written since the last look.
  look(): LifeLook {
    const changed = latestChange(this.attemptDir, this.files);
    if (changed !== undefined && changed > this.last) this.last = changed;
    const signals = this.adapter.scan?.(this.output.readNew());
    if (signals?.progress) this.last = Date.now();
    const silentMs = Date.now() - this.last;
    const told = { ...(signals?.retry && { retry: { ...signals.retry, reason: guardCliText(signals.retry.reason) } }), ...(signals?.progress && { progressed: true }) };
    return signals?.failure ? { silentMs, failure: `${guardCliText(signals.failure.reason)} (stopped early: no retry can fix it)`, ...told } : { silentMs, ...told };
  }
}

// What the watchdog says when it kills an attempt silent for `silentMs`.
export function silenceReason(silentMs: number, reassignMs: number): string {
  return `watchdog: no progress for ${Math.round(silentMs / 1000)}s (reassign after ${Math.round(reassignMs / 1000)}s); killed`;
}

// How often a watchdog looks when the shortest period it watches for is `periodMs`.
export function lookEveryMs(periodMs: number): number {
  return Math.max(10, Math.min(MAX_TICK_MS, Math.floor(periodMs / 4)));
}

// The latest modification time among the attempt's sign-of-life files; undefined when none is there.
function latestChange(dir: string, names: string[]): number | undefined {
  let latest: number | undefined;
  for (const name of names) {
    let mtime: number | undefined;
    try {
      // A file not there yet (most of them, at an attempt's start) answers undefined, not an error
      // built with its stack for each look.
      mtime = statSync(`${dir}/${name}`, { throwIfNoEntry: false })?.mtimeMs;
    } catch {
      // Unreadable: no sign of life.
    }
    if (mtime !== undefined) latest = latest === undefined ? mtime : Math.max(latest, mtime);
  }
  return latest;
}
