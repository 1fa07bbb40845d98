// What is left of a run's processes, read from /proc on its own (not through the code under test).
import { readdirSync, readFileSync } from 'node:fs';

export interface LiveProcess {
  pid: number;
  pgid: number;
  command: string;
}

// The state, process group and start time of a pid; undefined when it is gone.
export function readStat(pid: number): { state: string; pgid: number; startTime: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '?', pgid: Number(rest[2]), startTime: Number(rest[19]) };
}

// True while the pid runs (a zombie waiting for its reaper does not count).
export function isRunning(pid: number): boolean {
  const state = readStat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

// Every running process whose process group is one of `pgids`, with its command line for messages.
export function liveInGroups(pgids: Iterable<number>): LiveProcess[] {
  const wanted = new Set(pgids);
  const found: LiveProcess[] = [];
  if (wanted.size === 0) return found;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat || !wanted.has(stat.pgid) || stat.state === 'Z' || stat.state === 'X') continue;
    found.push({ pid: Number(entry), pgid: stat.pgid, command: readCommand(Number(entry)) });
  }
  return found;
}

// SIGKILL to each recorded group that is still the test's own: the safety net of a test's cleanup.
// A group is ours while its leader is the recorded process, or while no process holds the leader's
// pid (Linux never hands out a pid still used as a process group id).
export function killOwnedGroups(handles: Iterable<{ pid: number; pidStart: number; pgid: number }>): void {
  for (const handle of handles) {
    const leader = readStat(handle.pid);
    if (leader && leader.startTime !== handle.pidStart) continue;
    if (liveInGroups([handle.pgid]).length === 0) continue;
    try {
      process.kill(-handle.pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').replace(/\s+/g, ' ').trim().slice(0, 120);
  } catch {
    return '?';
  }
}
