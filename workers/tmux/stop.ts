// Stops an attempt: shutdown file and C-c, grace, SIGTERM to its process group, then SIGKILL.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, listGroupMembers, ownsGroup, signalGroup, waitUntil } from '../../src/sys/proc.js';
import type { StopOptions } from '../types.js';
import { SHUTDOWN_FILE } from '../wrapper.js';
import type { TmuxHandle } from './launch.js';
import { readPaneState } from './panes.js';
import { runTmux, type TmuxTarget } from './tmux-run.js';

// Between SIGTERM and SIGKILL: enough to flush and exit, short enough for a cancel.
const KILL_DELAY_MS = 3_000;
// After SIGKILL the kernel needs only a moment.
const KILLED_TIMEOUT_MS = 5_000;

// Resolves once no process of the attempt's group is left; signals only the recorded pgid.
export async function stopWorker(target: TmuxTarget, handle: TmuxHandle, options: StopOptions): Promise<void> {
  const isGone = (): boolean => !isProcessAlive(handle.pid, handle.pidStart, handle) && listGroupMembers(handle.pgid).length === 0;
  // A recycled pid leads someone else's group: leave it alone.
  if (!ownsGroup(handle.pid, handle.pidStart, handle) || isGone()) return;
  await askToStop(target, handle);
  if (await waitUntil(isGone, options.graceMs)) return;
  await endGroup(handle.pgid, isGone, () => ownsGroup(handle.pid, handle.pidStart, handle));
}

// SIGTERM to a process group, then SIGKILL after a short delay; resolves once the check says gone.
// `stillOurs` is asked again before each signal: the group must still be the one recorded.
export async function endGroup(pgid: number, isGone = (): boolean => listGroupMembers(pgid).length === 0, stillOurs = (): boolean => true): Promise<void> {
  if (!stillOurs()) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitUntil(isGone, KILL_DELAY_MS)) return;
  if (!stillOurs()) return;
  signalGroup(pgid, 'SIGKILL');
  await waitUntil(isGone, KILLED_TIMEOUT_MS);
}

// The polite request: a shutdown file the agent may watch, then C-c typed into its pane.
async function askToStop(target: TmuxTarget, handle: TmuxHandle): Promise<void> {
  const state = await readPaneState(target, handle);
  if (state.kind !== 'live') return;
  const attemptDir = state.pane.attemptDir;
  if (attemptDir !== undefined) await writeFile(join(attemptDir, SHUTDOWN_FILE), `${new Date().toISOString()}\n`);
  await runTmux(target, ['send-keys', '-t', handle.paneId, 'C-c']);
}
