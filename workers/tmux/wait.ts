// Waits for an attempt's pane command to end; works from the disk and the server alone (re-adoption).
import { existsSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive, listGroupMembers, ownsGroup, readZombieEnd, waitUntil } from '../../src/sys/proc.js';
import type { LaunchSpec, WorkerExit } from '../types.js';
import { EXIT_FILE, PID_FILE, readExitRecord, SHUTDOWN_FILE, type ExitRecord } from '../wrapper.js';
import { toChannel } from './launch-script.js';
import type { TmuxHandle } from './launch.js';
import { readPaneState, type PaneState } from './panes.js';
import { endGroup } from './stop.js';
import { runTmux, spawnTmux, type TmuxTarget } from './tmux-run.js';

// Poll for exit.json and pane state; the wrapper's wait-for wake-up usually comes first.
const POLL_MS = 500;
// A dead pane's exit status comes with tmux's SIGCHLD, which can lag the pane's end by seconds on a loaded machine.
const STATUS_WAIT_MS = 5_000;
const STATUS_POLL_MS = 50;
// After the exit record, the wrapper only runs its wait-for hook and exits.
const SETTLE_MS = 2_000;

// Resolves with how the attempt ended: the wrapper's exit record, else the dead pane's status.
export async function waitForExit(target: TmuxTarget, handle: TmuxHandle, spec: LaunchSpec): Promise<WorkerExit> {
  // An orchestrator that died between recording the pane and releasing it left the pane waiting:
  // release it now (the go channel is this attempt's own, and a second release is harmless).
  if (!existsSync(join(spec.attemptDir, PID_FILE))) await runTmux(target, ['wait-for', '-S', toChannel(spec, 'go')]);
  // wait-for -S latches, so an end signalled before we got here still wakes us.
  const waker = spawnTmux(target, ['wait-for', toChannel(spec, 'done')]);
  let woken = false;
  const wake = waker.ended.then(() => {
    woken = true;
  });
  let statusWait: number | undefined;
  try {
    for (;;) {
      const record = await readExitRecord(spec.attemptDir);
      if (record !== undefined) {
        await waitUntil(() => !isProcessAlive(handle.pid, handle.pidStart, handle), SETTLE_MS);
        return await reapLeftovers(handle, toExit(spec, record));
      }
      const state = await readPaneState(target, handle);
      // A pane seen dead a moment before tmux filled in its status: look again shortly.
      const statusPending = state.kind === 'dead' && state.pane.deadStatus === null && state.pane.deadSignal === null;
      if (statusPending && (statusWait ??= Date.now() + STATUS_WAIT_MS) > Date.now()) {
        await sleep(STATUS_POLL_MS);
        continue;
      }
      if (state.kind !== 'live') return await reapLeftovers(handle, await toEndedExit(handle, spec, state));
      await (woken ? sleep(POLL_MS) : Promise.race([sleep(POLL_MS), wake]));
    }
  } finally {
    waker.kill();
  }
}

// Once the pane's command is gone, what is left in its group (the agent's own children) is ended too.
async function reapLeftovers(handle: TmuxHandle, exit: WorkerExit): Promise<WorkerExit> {
  if (isProcessAlive(handle.pid, handle.pidStart, handle) || !ownsGroup(handle.pid, handle.pidStart, handle) || listGroupMembers(handle.pgid).length === 0) return exit;
  await endGroup(handle.pgid);
  return exit;
}

// The pane is dead or gone with no exit record seen: take the record if it appears now, else the pane's word.
async function toEndedExit(handle: TmuxHandle, spec: LaunchSpec, state: PaneState): Promise<WorkerExit> {
  await waitUntil(() => !isProcessAlive(handle.pid, handle.pidStart, handle), SETTLE_MS);
  const record = await readExitRecord(spec.attemptDir);
  if (record !== undefined) return toExit(spec, record);
  if (state.kind === 'dead') {
    const { deadStatus, deadSignal } = state.pane;
    if (deadStatus === null && deadSignal === null) {
      // tmux (3.3a at least) may leave a pane dead with no status, its process never reaped: a
      // zombie still holds how it ended.
      const zombie = readZombieEnd(handle.pid, handle.pidStart);
      if (zombie) return { ...toExit(spec, { exitCode: zombie.exitCode, signal: zombie.signal === null ? null : toSignalName(zombie.signal) }), reason: 'no exit record; status from the pane\'s unreaped process' };
    }
    const signal = deadSignal === null ? null : toSignalName(deadSignal);
    const exitCode = signal === null ? deadStatus : null;
    return { ...toExit(spec, { exitCode, signal }), reason: 'no exit record; status from the dead pane' };
  }
  return { ...toExit(spec, { exitCode: null, signal: null }), reason: toGoneReason(spec, state) };
}

function toGoneReason(spec: LaunchSpec, state: PaneState): string {
  if (state.kind === 'no-server') return 'tmux server gone';
  if (state.kind === 'reused') return 'pane respawned for a later attempt';
  return isStopRequested(spec) ? 'pane gone' : 'pane killed from outside';
}

function toExit(spec: LaunchSpec, record: ExitRecord): WorkerExit {
  const started = readMtime(join(spec.attemptDir, PID_FILE));
  const ended = readMtime(join(spec.attemptDir, EXIT_FILE)) ?? Date.now();
  const durationMs = started === undefined ? 0 : Math.max(0, Math.round(ended - started));
  return { exitCode: record.exitCode, signal: record.signal, durationMs, stopped: isStopRequested(spec), ...(record.reason ? { reason: record.reason } : {}) };
}

function isStopRequested(spec: LaunchSpec): boolean {
  return existsSync(join(spec.attemptDir, SHUTDOWN_FILE));
}

function readMtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function toSignalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signal);
  return entry?.[0] ?? `SIG${signal}`;
}
