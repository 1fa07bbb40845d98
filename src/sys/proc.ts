// Facts about processes from /proc: identity (pid + start time), liveness, group signals.
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// How often liveness is polled while waiting for a process to go.
const POLL_MS = 50;

export interface ProcStat {
  state: string;
  ppid: number;
  pgid: number;
  /** The controlling terminal's device number; 0 when the process has none. */
  ttyNr: number;
  startTime: number;
  /** The wait status (exit_code, Linux 3.5+): set once the process has ended, while a zombie. */
  waitStatus: number;
}

// One read buffer for /proc/<pid>/stat (a few hundred bytes): the escapee scan reads it for every
// process of the machine, and readFileSync's fstat, growing reads and decoding cost more than the read.
const STAT_BUFFER = Buffer.alloc(4096);

// Parses /proc/<pid>/stat; the command name may hold spaces and parentheses.
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
    text = STAT_BUFFER.toString('utf8', 0, readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Fields after the name: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) ... starttime(22) ... exit_code(52).
  return { state: rest[0] ?? '?', ppid: Number(rest[1]), pgid: Number(rest[2]), ttyNr: Number(rest[4]), startTime: Number(rest[19]), waitStatus: Number(rest[49]) };
}

// How a process that ended but is not reaped yet (a zombie) ended: its exit code, or the signal
// that killed it; undefined when it is not that zombie (gone, alive, or another process).
export function readZombieEnd(pid: number, pidStart: number): { exitCode: number | null; signal: number | null } | undefined {
  const stat = readProcStat(pid);
  if (!stat || stat.state !== 'Z' || stat.startTime !== pidStart || !Number.isInteger(stat.waitStatus)) return undefined;
  const signal = stat.waitStatus & 0x7f;
  return signal === 0 ? { exitCode: (stat.waitStatus >> 8) & 0xff, signal: null } : { exitCode: null, signal };
}

// The start time of a live process, in clock ticks since boot; undefined when gone.
export function readPidStart(pid: number): number | undefined {
  return readProcStat(pid)?.startTime;
}

// The size of the pid space: a new process takes the next free pid after the last one handed out,
// wrapping past PID_MAX to the low pids the kernel does not reserve (RESERVED_PIDS).
export const PID_MAX = readNumber('/proc/sys/kernel/pid_max');
const RESERVED_PIDS = 300;

// How many processes and threads the machine has forked since boot (/proc/stat `processes`).
export function readForkCount(): number | undefined {
  try {
    const match = /^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

// Whether `pid` can belong to a process started after process `after.pid`, when the machine had
// forked `after.forks` times before that one started and `forksNow` times now: a later process's pid
// comes after it in allocation order by at most the forks since (plus the reserved pids a wrap skips).
export function mayBeNewer(pid: number, after: { pid: number; forks: number }, forksNow: number): boolean {
  if (PID_MAX === undefined) return true;
  const window = forksNow - after.forks + RESERVED_PIDS;
  if (window >= PID_MAX - 1) return true;
  const distance = (pid - after.pid + PID_MAX) % PID_MAX;
  return distance > 0 && distance <= window;
}

function readNumber(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

// This boot's id: a pid recorded on another boot is never ours, whatever its start time.
export const BOOT_ID = readBootId();

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

// True when a recorded boot id (absent in older logs) is not this boot's.
export function otherBoot(bootId: string | undefined): boolean {
  return bootId !== undefined && BOOT_ID !== undefined && bootId !== BOOT_ID;
}

// This process's pid namespace (/proc/self/ns/pid): a pid recorded in another one names another
// process here, or none.
export const PID_NS = readPidNs();

function readPidNs(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

// Where a pid was recorded: its boot and pid namespace (each absent in older logs).
export interface PidPlace {
  bootId?: string;
  pidNs?: string;
}

// True when a pid was recorded on another boot or in another pid namespace: it is not ours to judge or signal.
export function elsewhere(place: PidPlace | undefined): boolean {
  if (otherBoot(place?.bootId)) return true;
  return place?.pidNs !== undefined && PID_NS !== undefined && place.pidNs !== PID_NS;
}

// What a handle records of where its pid is: this boot and this pid namespace.
export function herePlace(): PidPlace {
  return { ...(BOOT_ID ? { bootId: BOOT_ID } : {}), ...(PID_NS ? { pidNs: PID_NS } : {}) };
}

// True when the very process we recorded still runs (a recycled pid has another start time).
export function isProcessAlive(pid: number, pidStart: number, place?: PidPlace): boolean {
  if (elsewhere(place)) return false;
  const stat = readProcStat(pid);
  return stat !== undefined && stat.startTime === pidStart && stat.state !== 'Z' && stat.state !== 'X';
}

// One scan of /proc serves every caller for this long: twenty workers stopping at once poll together.
const SCAN_TTL_MS = 20;
let scan: { at: number; groups: Map<number, number[]> } | undefined;

// Pids of the live members of a process group.
export function listGroupMembers(pgid: number): number[] {
  // An empty group answers ESRCH at once, without a scan of /proc.
  if (pgid <= 1 || !groupExists(pgid)) return [];
  if (!scan || Date.now() - scan.at >= SCAN_TTL_MS) scan = { at: Date.now(), groups: scanGroups() };
  return scan.groups.get(pgid) ?? [];
}

function scanGroups(): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return groups;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const members = groups.get(stat.pgid);
    if (members) members.push(Number(entry));
    else groups.set(stat.pgid, [Number(entry)]);
  }
  return groups;
}

// Whether any process, a zombie too, is still in the group.
export function groupExists(pgid: number): boolean {
  if (!isTarget(pgid)) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

// The group we recorded is still ours: its leader is the very process we started, or gone
// (Linux never hands out a pid that is still a live process group id, so members left are ours).
export function ownsGroup(pid: number, pidStart: number, place?: PidPlace): boolean {
  if (elsewhere(place)) return false;
  const stat = readProcStat(pid);
  return stat === undefined || stat.startTime === pidStart;
}

// Only a pid or group id above 1 names a process teamline may have started: kill(0) would signal
// our own group, kill(-1) every process we may signal, and 1 is init. A handle or a record that
// holds such a number (corrupted, or a pid read as 0) is never signalled.
function isTarget(id: number): boolean {
  return Number.isSafeInteger(id) && id > 1;
}

// Sends a signal to a whole process group; a group already gone is not an error.
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (!isTarget(pgid)) return;
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

// Sends a signal to one process; a process already gone is not an error.
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  if (!isTarget(pid)) return;
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

// Resolves true once the check holds, false when the time is up.
export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}
