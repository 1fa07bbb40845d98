// Descendants of an attempt that left its process group (a `setsid` double fork): found by the
// attempt's marker in their environment, same user, started after the attempt, and stopped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mayBeNewer, readForkCount, readProcStat, signalProcess, waitUntil, type ProcStat } from '../src/sys/proc.js';
import type { WorkerHandle } from './types.js';

// Between SIGTERM and SIGKILL for an escaped descendant.
const TERM_TO_KILL_MS = 2_000;

export interface AttemptMarker {
  runId: string;
  taskId: string;
  attempt: number;
  /** Start time (clock ticks since boot) of the attempt's first process: older ones are not its. */
  since: number;
  /**
   * That first process's pid and the machine's fork count just before it started: only pids handed
   * out since can be the attempt's, so the others are never opened. Without it every process is read.
   */
  after?: { pid: number; forks: number };
}

// The marker of an attempt whose first process is the worker `handle` names.
export function escapeeMarker(runId: string, taskId: string, attempt: number, handle: WorkerHandle): AttemptMarker {
  return { runId, taskId, attempt, since: handle.pidStart, ...(handle.forksAt !== undefined && { after: { pid: handle.pid, forks: handle.forksAt } }) };
}

// Pids carrying the attempt's TEAM_RUN_ID, TEAM_TASK_ID and TEAM_ATTEMPT, ours, started since.
export function findEscapees(marker: AttemptMarker): number[] {
  return scanFor([marker])[0]!;
}

// One look at every process of the machine for several attempts at once (it costs tens of
// microseconds a process): the pids of each attempt's escapees, in the order of `markers`.
function scanFor(markers: AttemptMarker[]): number[][] {
  const wanted = markers.map((m) => [`TEAM_RUN_ID=${m.runId}`, `TEAM_TASK_ID=${m.taskId}`, `TEAM_ATTEMPT=${m.attempt}`]);
  const oldest = Math.min(...markers.map((m) => m.since));
  const found: number[][] = markers.map(() => []);
  const forksNow = markers.every((m) => m.after) ? readForkCount() : undefined;
  forOwnProcesses(
    {
      pid: (pid) => forksNow === undefined || markers.some((m) => mayBeNewer(pid, m.after!, forksNow)),
      // Most processes of a machine are older than every attempt asked about.
      stat: (stat) => stat.startTime >= oldest,
    },
    (pid, stat, environ) =>
      markers.forEach((marker, i) => {
        if (stat.startTime >= marker.since && wanted[i]!.every((line) => environ.includes(line))) found[i]!.push(pid);
      }),
  );
  return found;
}

// Every live process of our user but this one that the filters let through (its pid, then its stat
// line, read before its owner and environment are), with the lines of its environment.
function forOwnProcesses(admit: { pid?: (pid: number) => boolean; stat?: (stat: ProcStat) => boolean }, visit: (pid: number, stat: ProcStat, environ: string[]) => void): void {
  const uid = process.getuid?.();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || pid === process.pid || admit.pid?.(pid) === false) continue;
    try {
      const stat = readProcStat(pid);
      if (!stat || stat.state === 'Z' || admit.stat?.(stat) === false) continue;
      if (uid !== undefined && statSync(`/proc/${entry}`).uid !== uid) continue;
      visit(pid, stat, readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0'));
    } catch {
      // Gone, or not readable: not ours to judge.
    }
  }
}

// The scans not yet begun, by how long each gathers: attempts that ask while one gathers share it (it
// begins after they all asked, so it sees everything each of them left). 0: the current turn of the
// event loop.
const gathering = new Map<number, { markers: AttemptMarker[]; found: Promise<number[][]> }>();

function findEscapeesShared(marker: AttemptMarker, gatherMs: number): Promise<number[]> {
  let batch = gathering.get(gatherMs);
  if (!batch) {
    const markers: AttemptMarker[] = [];
    const found = new Promise<number[][]>((resolve, reject) => {
      const scan = () => {
        gathering.delete(gatherMs);
        try {
          resolve(scanFor(markers));
        } catch (error) {
          reject(error as Error);
        }
      };
      if (gatherMs > 0) setTimeout(scan, gatherMs);
      else setImmediate(scan);
    });
    batch = { markers, found };
    gathering.set(gatherMs, batch);
  }
  const index = batch.markers.push(marker) - 1;
  return batch.found.then((all) => all[index]!);
}

// SIGTERM to every escaped descendant, SIGKILL to those left; resolves with how many there were.
// `gatherMs`: how long the scan waits for other attempts' ends to share it.
export async function stopEscapees(marker: AttemptMarker, gatherMs = 0): Promise<number> {
  const pids = await findEscapeesShared(marker, gatherMs);
  await stopAll(pids, () => findEscapees(marker));
  return pids.length;
}

// SIGTERM to each pid, then SIGKILL to those `look` still finds after the grace.
async function stopAll(pids: number[], look: () => number[]): Promise<void> {
  if (pids.length === 0) return;
  for (const pid of pids) signalProcess(pid, 'SIGTERM');
  const left = () => look().filter((pid) => pids.includes(pid));
  if (!(await waitUntil(() => left().length === 0, TERM_TO_KILL_MS))) for (const pid of left()) signalProcess(pid, 'SIGKILL');
}

// The processes a run's finished attempts left running, ours, found by their marker: each carries a
// finished attempt's TEAM_TASK_ID and TEAM_ATTEMPT beside the run's TEAM_RUN_ID and started when that
// attempt's first process did or later. `finished` maps `task#attempt` to that start time.
export function findRunLeftovers(runId: string, finished: ReadonlyMap<string, number>): number[] {
  const runLine = `TEAM_RUN_ID=${runId}`;
  const found: number[] = [];
  if (finished.size === 0) return found;
  // Processes older than every finished attempt are none of theirs.
  let oldest = Infinity;
  for (const since of finished.values()) oldest = Math.min(oldest, since);
  forOwnProcesses({ stat: (stat) => stat.startTime >= oldest }, (pid, stat, environ) => {
    if (!environ.includes(runLine)) return;
    const value = (name: string) => environ.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1);
    const since = finished.get(`${value('TEAM_TASK_ID')}#${value('TEAM_ATTEMPT')}`);
    if (since !== undefined && stat.startTime >= since) found.push(pid);
  });
  return found;
}

// Stops what findRunLeftovers finds; resolves with how many there were.
export async function stopRunLeftovers(runId: string, finished: ReadonlyMap<string, number>): Promise<number> {
  const pids = findRunLeftovers(runId, finished);
  await stopAll(pids, () => findRunLeftovers(runId, finished));
  return pids.length;
}
