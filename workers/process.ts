// The headless backend: each attempt is a detached process group started with execa, its output
// written straight to output.log, so that it outlives an orchestrator crash and can be re-adopted.
import { readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { BOOT_ID, isProcessAlive, listGroupMembers, ownsGroup, readPidStart, signalGroup, waitUntil } from './proc.js';
import type { LaunchSpec, StopOptions, WorkerBackend, WorkerExit, WorkerHandle } from './types.js';
import { OUTPUT_FILE, readExitRecord, SHUTDOWN_FILE, wrapperArgv, wrapperEnv } from './wrapper.js';

// Between SIGTERM and SIGKILL: a last chance to flush, never a wait for cooperation. Sized so that a
// cancelled worker that ignores signals is gone within the grace period plus 2.5 s.
const TERM_TO_KILL_MS = 1_000;
// The same step when the stop skips the grace period (`team cancel --force`): gone within 1 s.
const FORCED_TERM_TO_KILL_MS = 250;
// How often a worker started by an earlier orchestrator is checked.
const ADOPTED_POLL_MS = 50;

// Creates the process backend; children started here are awaited directly, others by polling /proc.
export function createProcessBackend(): WorkerBackend {
  const children = new Map<number, { subprocess: Promise<{ exitCode?: number; signal?: string }>; startedAt: number }>();

  async function launch(spec: LaunchSpec, record?: (handle: WorkerHandle) => void | Promise<void>): Promise<WorkerHandle> {
    const [file, ...args] = wrapperArgv(spec, { output: 'inherit' });
    const out = await open(join(spec.attemptDir, OUTPUT_FILE), 'a');
    try {
      const subprocess = execa(file!, args, {
        cwd: spec.cwd,
        env: wrapperEnv(spec),
        stdin: 'ignore',
        // A file descriptor handed to the child: its output never passes through us.
        // (execa's types accept only literal descriptor numbers here.)
        stdout: out.fd as 3,
        stderr: out.fd as 3,
        detached: true,
        // The worker must survive an orchestrator crash: never kill it on our exit.
        cleanup: false,
        reject: false,
      });
      const pid = subprocess.pid;
      if (pid === undefined) {
        const result = await subprocess;
        throw new Error(`could not start ${spec.command.file}: ${'message' in result ? String(result.message) : 'no pid'}`);
      }
      children.set(pid, { subprocess, startedAt: Date.now() });
      const handle: WorkerHandle = { backend: 'process', pid, pidStart: readPidStart(pid) ?? 0, pgid: pid, ...(BOOT_ID ? { bootId: BOOT_ID } : {}) };
      // A process runs from its spawn; a crash before this record is covered by its pid file.
      await record?.(handle);
      return handle;
    } finally {
      await out.close();
    }
  }

  async function wait(handle: WorkerHandle, spec: LaunchSpec): Promise<WorkerExit> {
    const child = children.get(handle.pid);
    const startedAt = child?.startedAt ?? Date.now();
    let signal: string | null = null;
    let exitCode: number | null = null;
    if (child) {
      const result = await child.subprocess;
      children.delete(handle.pid);
      exitCode = result.exitCode ?? null;
      signal = result.signal ?? null;
    } else {
      while (isProcessAlive(handle.pid, handle.pidStart, handle.bootId)) await new Promise((r) => setTimeout(r, ADOPTED_POLL_MS));
    }
    if (ownsGroup(handle.pid, handle.pidStart, handle.bootId)) reapGroup(handle.pgid, () => ownsGroup(handle.pid, handle.pidStart, handle.bootId));
    // The wrapper's record holds the agent's own status; the wrapper's is only a fallback.
    const record = await readExitRecord(spec.attemptDir);
    if (record) return { exitCode: record.exitCode, signal: record.signal, durationMs: Date.now() - startedAt, stopped: false };
    return { exitCode, signal, durationMs: Date.now() - startedAt, stopped: false, reason: child ? 'the wrapper left no exit record' : 'ended while no orchestrator watched, with no exit record' };
  }

  async function isAlive(handle: WorkerHandle): Promise<boolean> {
    return isProcessAlive(handle.pid, handle.pidStart, handle.bootId);
  }

  async function stop(handle: WorkerHandle, options: StopOptions): Promise<void> {
    await stopGroup(handle, options, (h) => {
      const dir = readAttemptDir(h.pid);
      if (dir) writeFileSync(join(dir, SHUTDOWN_FILE), `${new Date().toISOString()}\n`);
    });
  }

  return { kind: 'process', launch, wait, isAlive, stop };
}

// Polite request, grace, SIGTERM to the group, SIGKILL; resolves when the group is gone.
export async function stopGroup(handle: WorkerHandle, options: StopOptions, askPolitely: (h: WorkerHandle) => void): Promise<void> {
  // A recycled pid leads someone else's group: never signal it, never write into its folder. Asked
  // again before each signal: the worker may end meanwhile and its pid go to another process.
  const ours = () => ownsGroup(handle.pid, handle.pidStart, handle.bootId);
  if (!ours()) return;
  if (!isProcessAlive(handle.pid, handle.pidStart, handle.bootId) && listGroupMembers(handle.pgid).length === 0) return;
  const gone = () => listGroupMembers(handle.pgid).length === 0;
  try {
    askPolitely(handle);
  } catch {
    // The request file is a courtesy; the signals below do the work.
  }
  if (isProcessAlive(handle.pid, handle.pidStart, handle.bootId)) signalGroup(handle.pgid, 'SIGINT');
  if (options.graceMs > 0 && (await waitUntil(gone, options.graceMs))) return;
  if (!ours()) return;
  signalGroup(handle.pgid, 'SIGTERM');
  if (await waitUntil(gone, options.graceMs > 0 ? TERM_TO_KILL_MS : FORCED_TERM_TO_KILL_MS)) return;
  if (!ours()) return;
  signalGroup(handle.pgid, 'SIGKILL');
  await waitUntil(gone, TERM_TO_KILL_MS);
}

// The attempt folder a live wrapper was started with (`sh -c <script> sh <dir> ...`).
function readAttemptDir(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[4] || undefined;
  } catch {
    return undefined;
  }
}

// Members of a finished worker's group that linger (the agent's own children) are ended; the group
// is looked at again before the delayed SIGKILL.
function reapGroup(pgid: number, stillOurs: () => boolean): void {
  if (listGroupMembers(pgid).length === 0) return;
  signalGroup(pgid, 'SIGTERM');
  setTimeout(() => {
    if (listGroupMembers(pgid).length > 0 && stillOurs()) signalGroup(pgid, 'SIGKILL');
  }, TERM_TO_KILL_MS).unref();
}
