// A run's start and end records, found by their file names: those files alone are read, not the log.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readSmallFile } from '../sys/regular-file.js';
import { LIMITS } from './guards.js';
import type { RunPaths } from './write.js';

export type RunEnd = 'completed' | 'failed' | 'cancelled';

// `<stamp>-run_completed-run-a0-<token>.json` and its kin; the name says which event the file holds.
const END_FILE = /^\d{8}T\d{12}Z-run_(completed|failed|cancelled)-run-a0-[0-9a-z]{6}\.json$/;

// The last end record of the run (completed, failed or cancelled), or undefined while it has none. A
// file whose content is not the end record its name says is ignored, as the full read ignores it.
export function readRunEnd(paths: RunPaths, runId: string): RunEnd | undefined {
  let names: string[];
  try {
    names = readdirSync(paths.eventsDir);
  } catch {
    return undefined;
  }
  const ends = names.filter((name) => END_FILE.test(name)).sort();
  for (const name of ends.reverse()) {
    const kind = END_FILE.exec(name)![1] as RunEnd;
    if (isEndRecord(join(paths.eventsDir, name), kind, runId)) return kind;
  }
  return undefined;
}

function isEndRecord(file: string, kind: RunEnd, runId: string): boolean {
  try {
    const record = JSON.parse(readMark(file)) as Record<string, unknown>;
    const text = kind === 'completed' ? record.summary : record.reason;
    return record.event === `run_${kind}` && record.run_id === runId && typeof record.at === 'string' && typeof text === 'string';
  } catch {
    return false;
  }
}

// `<stamp>-run_started-run-a0-<token>.json`.
const START_FILE = /^\d{8}T\d{12}Z-run_started-run-a0-[0-9a-z]{6}\.json$/;

// The grace period (limits.shutdownTimeoutMs) the run was started with; undefined for a run not
// started by the pipeline or a record that does not say.
export function readStartedGrace(paths: RunPaths): number | undefined {
  let names: string[];
  try {
    names = readdirSync(paths.eventsDir);
  } catch {
    return undefined;
  }
  const name = names.find((n) => START_FILE.test(n));
  if (!name) return undefined;
  try {
    const record = JSON.parse(readMark(join(paths.eventsDir, name))) as { limits?: { shutdownTimeoutMs?: unknown } };
    const grace = record.limits?.shutdownTimeoutMs;
    return typeof grace === 'number' && Number.isInteger(grace) && grace >= 0 ? grace : undefined;
  } catch {
    return undefined;
  }
}

// An event file read as the log reads one (a FIFO or a link under its name is refused at once,
// never waited on); what cannot be read parses as nothing.
function readMark(file: string): string {
  const reading = readSmallFile(file, LIMITS.eventBytes);
  return reading.ok ? reading.text : '';
}
