// The tmux worker backend: each attempt is the command of its worker's window in the run's own server.
import { isProcessAlive } from '../../src/sys/proc.js';
import type { LaunchSpec, StopOptions, WorkerBackend, WorkerHandle } from '../types.js';
import { launchAttempt, type TmuxHandle } from './launch.js';
import { readPaneState } from './panes.js';
import { stopWorker } from './stop.js';
import { resolveTarget, type TmuxOptions, type TmuxTarget } from './tmux-run.js';
import { waitForExit } from './wait.js';

export type TmuxBackendOptions = TmuxOptions;

// Builds the backend; all it needs later is in the handle, so a new orchestrator can adopt old panes.
export function createTmuxBackend(options: TmuxBackendOptions = {}): WorkerBackend {
  const toTarget = (handle: TmuxHandle): TmuxTarget =>
    resolveTarget(handle.server, { ...options, socketDir: handle.socketDir });
  return {
    kind: 'tmux',
    launch: (spec: LaunchSpec, record?: (handle: WorkerHandle) => void | Promise<void>) => launchAttempt(spec, options, record),
    wait: (handle: WorkerHandle, spec: LaunchSpec) => waitForExit(toTarget(toTmux(handle)), toTmux(handle), spec),
    isAlive: (handle: WorkerHandle) => isWorkerAlive(toTarget(toTmux(handle)), toTmux(handle)),
    stop: (handle: WorkerHandle, stopOptions: StopOptions) =>
      stopWorker(toTarget(toTmux(handle)), toTmux(handle), stopOptions),
  };
}

// Alive while the pane runs, or while its recorded process does (pane gone, process not).
async function isWorkerAlive(target: TmuxTarget, handle: TmuxHandle): Promise<boolean> {
  const state = await readPaneState(target, handle);
  return state.kind === 'live' || isProcessAlive(handle.pid, handle.pidStart, handle);
}

function toTmux(handle: WorkerHandle): TmuxHandle {
  if (handle.backend !== 'tmux') throw new Error(`tmux backend got a ${handle.backend} handle`);
  return handle;
}
