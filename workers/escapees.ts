// Descendants of an attempt that left its process group (a `setsid` double fork): found by the
// attempt's marker in their environment, same user, started after the attempt, and stopped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readProcStat, signalProcess, waitUntil } from './proc.js';

// Between SIGTERM and SIGKILL for an escaped descendant.
const TERM_TO_KILL_MS = 2_000;

export interface AttemptMarker {
  runId: string;
  taskId: string;
  attempt: number;
  /** Start time (clock ticks since boot) of the attempt's first process: older ones are not its. */
  since: number;
}

// Pids carrying the attempt's TEAM_RUN_ID, TEAM_TASK_ID and TEAM_ATTEMPT, ours, started since.
export function findEscapees(marker: AttemptMarker): number[] {
  const wanted = [`TEAM_RUN_ID=${marker.runId}`, `TEAM_TASK_ID=${marker.taskId}`, `TEAM_ATTEMPT=${marker.attempt}`];
  const uid = process.getuid?.();
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${entry}`).uid !== uid) continue;
      const stat = readProcStat(Number(entry));
      if (!stat || stat.state === 'Z' || stat.startTime < marker.since) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (wanted.every((line) => environ.includes(line))) found.push(Number(entry));
    } catch {
      // Gone, or not readable: not ours to judge.
    }
  }
  return found;
}

// SIGTERM to every escaped descendant, SIGKILL to those left; resolves with how many there were.
export async function stopEscapees(marker: AttemptMarker): Promise<number> {
  const pids = findEscapees(marker);
  if (pids.length === 0) return 0;
  for (const pid of pids) signalProcess(pid, 'SIGTERM');
  const left = () => findEscapees(marker).filter((pid) => pids.includes(pid));
  if (!(await waitUntil(() => left().length === 0, TERM_TO_KILL_MS))) for (const pid of left()) signalProcess(pid, 'SIGKILL');
  return pids.length;
}
