// Processes and tmux servers of a run, found through /proc: what a test checks is gone at the end,
// and what the cleanup ends when a test failed half-way (only processes of the test's own runs).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';

export interface ProcInfo {
  pid: number;
  pgid: number;
  state: string;
  cmdline: string;
}

// Every live (non-zombie) process of the machine.
export function listProcs(): ProcInfo[] {
  const procs: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = rest[0] ?? '?';
      if (state === 'Z' || state === 'X') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      procs.push({ pid: Number(entry), pgid: Number(rest[2]), state, cmdline });
    } catch {
      // Gone while we looked.
    }
  }
  return procs;
}

// The process groups the log recorded for the run's workers (attempt_spawned handles).
export function recordedGroups(eventsDir: string): number[] {
  if (!existsSync(eventsDir)) return [];
  const groups = new Set<number>();
  for (const name of readdirSync(eventsDir)) {
    if (!name.includes('-attempt_spawned-') || name.startsWith('.')) continue;
    try {
      const event = JSON.parse(readFileSync(join(eventsDir, name), 'utf8')) as { handle?: { pgid?: number } };
      if (event.handle?.pgid) groups.add(event.handle.pgid);
    } catch {
      // A damaged record names no group.
    }
  }
  return [...groups];
}

// Processes of a run still alive: members of its recorded worker groups, and anything that names
// the run in its command line (its folder, its tmux server `team-<run id>`, its wait-for channels)
// or in its environment (TEAM_RUN_ID, which every worker and its children inherit). A group member
// that names no run is a recycled pid of someone else, and is left alone.
export function findRunProcesses(runDir: string, runId: string): Array<ProcInfo & { recordedGroup: boolean }> {
  const groups = new Set(recordedGroups(join(runDir, 'events')));
  return listProcs()
    .filter((p) => p.pid !== process.pid && namesRun(p, runDir, runId))
    .map((p) => ({ ...p, recordedGroup: groups.has(p.pgid) }));
}

function namesRun(proc: ProcInfo, runDir: string, runId: string): boolean {
  if (proc.cmdline.includes(runDir) || proc.cmdline.includes(`team-${runId}`)) return true;
  try {
    return readFileSync(`/proc/${proc.pid}/environ`, 'utf8').split('\0').includes(`TEAM_RUN_ID=${runId}`);
  } catch {
    return false;
  }
}

// Waits (a little) for the run's processes to be gone; returns those still there, as readable lines.
export async function leftoverProcesses(runDir: string, runId: string, waitMs = 4_000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = findRunProcesses(runDir, runId);
    if (left.length === 0 || Date.now() >= deadline) return left.map((p) => `pid ${p.pid} (pgid ${p.pgid}${p.recordedGroup ? ', a recorded worker group' : ''}, ${p.state}): ${p.cmdline.slice(0, 160)}`);
    await sleep(100);
  }
}

// True while the run's private tmux server answers in `tmuxDir`.
export async function tmuxServerAnswers(runId: string, tmuxDir: string): Promise<boolean> {
  const result = await execa('tmux', ['-L', `team-${runId}`, 'list-sessions'], { env: { TMUX_TMPDIR: tmuxDir, TMUX: undefined }, reject: false, stdin: 'ignore' });
  return result.exitCode === 0;
}

// The absolute path of the tmux on PATH.
export async function tmuxPath(): Promise<string> {
  const result = await execa('sh', ['-c', 'command -v tmux'], { reject: false, stdin: 'ignore' });
  if (result.exitCode !== 0) throw new Error('tmux is not on PATH');
  return String(result.stdout).trim();
}

// Cleanup after a failed test: the run's tmux server, then SIGKILL to what is left of the run's own processes.
export async function sweepRun(runDir: string, runId: string, tmuxDir: string | undefined): Promise<void> {
  if (tmuxDir) await execa('tmux', ['-L', `team-${runId}`, 'kill-server'], { env: { TMUX_TMPDIR: tmuxDir, TMUX: undefined }, reject: false, stdin: 'ignore' });
  for (const proc of findRunProcesses(runDir, runId)) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
