// Starts one attempt as the command of its worker's window and records who runs it.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { herePlace, isProcessAlive, readForkCount, readProcStat, waitUntil } from '../../src/sys/proc.js';
import type { LaunchSpec, WorkerHandle } from '../types.js';
import { PID_FILE } from '../wrapper.js';
import { LAUNCH_FILE, makeLaunchScript, toChannel } from './launch-script.js';
import { ATTEMPT_DIR_OPTION, listTargetPanes } from './panes.js';
import { ensureServer } from './server.js';
import { runTmux, SESSION, type TmuxOptions, type TmuxTarget } from './tmux-run.js';

// Time for the released pane to reach the wrapper; generous for a loaded machine.
const WRAPPER_START_MS = 10_000;

export type TmuxHandle = Extract<WorkerHandle, { backend: 'tmux' }>;

interface StartedPane {
  paneId: string;
  pid: number;
}

// Opens (or respawns) the worker's window on the launch file; the agent starts once the pid is recorded.
export async function launchAttempt(spec: LaunchSpec, options: TmuxOptions, record?: (handle: TmuxHandle) => void | Promise<void>): Promise<TmuxHandle> {
  const target = await ensureServer(spec.runId, options);
  await mkdir(spec.attemptDir, { recursive: true });
  const launchFile = join(spec.attemptDir, LAUNCH_FILE);
  await writeFile(launchFile, makeLaunchScript(spec, target), { mode: 0o600 });
  const forksAt = readForkCount();
  const pane = await startPane(target, spec.worker, ['sh', launchFile]);
  let handle: TmuxHandle;
  try {
    await runTmux(target, ['set-option', '-p', '-t', pane.paneId, ATTEMPT_DIR_OPTION, spec.attemptDir]);
    // The pane waits on the go channel, so its process is alive here and its start time readable.
    const stat = readProcStat(pane.pid);
    const { server, socketDir } = target;
    const identity = { pid: pane.pid, pidStart: stat?.startTime ?? 0, pgid: stat?.pgid ?? pane.pid, ...herePlace(), ...(forksAt !== undefined ? { forksAt } : {}) };
    handle = { backend: 'tmux', server, socketDir, paneId: pane.paneId, window: spec.worker, ...identity };
    // The runtime writes the pane into its log here, before the agent may start.
    await record?.(handle);
  } catch (error) {
    // An agent whose pane is not in the log is never released: the pane goes, its agent unstarted.
    await runTmux(target, ['kill-pane', '-t', pane.paneId]);
    throw error;
  }
  await runTmux(target, ['wait-for', '-S', toChannel(spec, 'go')]);
  // Until the wrapper runs, a C-c would hit the go client (tmux ignores SIGINT) and be lost.
  const pidFile = join(spec.attemptDir, PID_FILE);
  await waitUntil(() => existsSync(pidFile) || !isProcessAlive(handle.pid, handle.pidStart, handle), WRAPPER_START_MS);
  return handle;
}

// Reuses the worker's window when its pane is dead (an earlier attempt), else opens a new one.
async function startPane(target: TmuxTarget, worker: string, command: string[]): Promise<StartedPane> {
  const panes = (await listTargetPanes(target)) ?? [];
  const dead = panes.find((pane) => pane.window === worker && pane.dead);
  if (dead !== undefined) {
    const respawned = await runTmux(target, ['respawn-pane', '-k', '-t', dead.paneId, ...command]);
    const pane = respawned.ok ? (await listTargetPanes(target))?.find((p) => p.paneId === dead.paneId) : undefined;
    if (pane !== undefined && !pane.dead) return { paneId: pane.paneId, pid: pane.pid };
  }
  const format = '#{pane_id}\t#{pane_pid}';
  const args = ['new-window', '-d', '-P', '-F', format, '-t', `${SESSION}:`, '-n', worker, ...command];
  const opened = await runTmux(target, args);
  const [paneId = '', pid = ''] = opened.stdout.trim().split('\t');
  if (!opened.ok || !paneId.startsWith('%') || !(Number(pid) > 0)) {
    throw new Error(`tmux ${target.server}: cannot open window ${worker}: ${opened.stderr.trim()}`);
  }
  return { paneId, pid: Number(pid) };
}
