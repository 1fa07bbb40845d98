// What is still alive of a process group, read straight from /proc (not through the product's own code).
import { readdirSync, readFileSync } from 'node:fs';

interface Stat {
  state: string;
  pgid: number;
  startTime: number;
}

// Fields of /proc/<pid>/stat after the command name, which may hold spaces and parentheses.
function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', pgid: Number(fields[2]), startTime: Number(fields[19]) };
}

// Pids of the live (not zombie) members of each group, keyed by group id; groups with none are left out.
export function liveMembersOfGroups(pgids: number[]): Map<number, number[]> {
  const wanted = new Set(pgids);
  const live = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat || !wanted.has(stat.pgid) || stat.state === 'Z' || stat.state === 'X') continue;
    live.set(stat.pgid, [...(live.get(stat.pgid) ?? []), Number(entry)]);
  }
  return live;
}

// True while the very process recorded (pid and start time) still runs.
export function isSameProcessAlive(pid: number, startTime: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.startTime === startTime && stat.state !== 'Z' && stat.state !== 'X';
}

// Cleanup after a test: SIGKILL each group whose leader is still the process recorded; never a recycled pid.
export function killRecordedGroups(handles: Array<{ pid: number; pidStart: number; pgid: number }>): void {
  for (const handle of handles) {
    if (!isSameProcessAlive(handle.pid, handle.pidStart)) continue;
    try {
      process.kill(-handle.pgid, 'SIGKILL');
    } catch {
      // Gone in between.
    }
  }
}
