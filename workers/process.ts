// The headless backend: each attempt is a detached process group started by the launcher (or execa),
// its output written straight to output.log, so that it outlives an orchestrator crash and can be re-adopted.
import { readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Launcher, type LauncherPrograms, type Started } from './launcher.js';
import { findOnPath } from '../src/sys/on-path.js';
import { groupExists, herePlace, isProcessAlive, listGroupMembers, ownsGroup, readForkCount, readPidStart, readZombieEnd, signalGroup, waitUntil } from '../src/sys/proc.js';
import type { LaunchSpec, StopOptions, WorkerBackend, WorkerExit, WorkerHandle } from './types.js';
import { makeWrapperScript, OUTPUT_FILE, readExitRecord, SHUTDOWN_FILE, wrapperArgv, wrapperEnv } from './wrapper.js';

// Between SIGTERM and SIGKILL: a last chance to flush, never a wait for cooperation. Sized so that a
// cancelled worker that ignores signals is gone within the grace period plus 2.5 s.
const TERM_TO_KILL_MS = 1_000;
// The same step when the stop skips the grace period (`team cancel --force`): gone within 1 s.
const FORCED_TERM_TO_KILL_MS = 250;
// How often a worker started by an earlier orchestrator is checked.
const ADOPTED_POLL_MS = 50;

// Creates the process backend; children started here are awaited directly, others by polling /proc.
// `shell`: the shell's launcher even where there is a perl (as on a machine without one).
export function createProcessBackend(options: { launcher?: 'shell' } = {}): WorkerBackend {
  const children = new Map<number, { ended: Promise<{ exitCode?: number; signal?: string }>; startedAt: number; launched: boolean }>();

  // The launcher when sh and setsid are on PATH (perl's where there is a perl); each launch it cannot
  // take goes through execa.
  const programs = findPrograms(options.launcher === 'shell');
  const launcher = programs && new Launcher(programs, makeWrapperScript({ output: 'inherit', notify: true }), stopAbandoned);

  async function launch(spec: LaunchSpec, record?: (handle: WorkerHandle) => void | Promise<void>): Promise<WorkerHandle> {
    const forksAt = readForkCount();
    const started = launcher?.launch({
      cwd: spec.cwd,
      env: wrapperEnv(spec),
      attemptDir: spec.attemptDir,
      stdinFile: spec.command.stdinFile ?? '',
      file: spec.command.file,
      args: spec.command.args,
      outputFile: join(spec.attemptDir, OUTPUT_FILE),
    });
    if (!started) return launchWithExeca(spec, forksAt, record);
    let launched: Started;
    try {
      launched = await started;
    } catch (error) {
      throw new Error(`could not start ${spec.command.file}: ${(error as Error).message}`);
    }
    children.set(launched.pid, { ended: launched.ended.then((status) => ({ exitCode: status })), startedAt: Date.now(), launched: true });
    const handle: WorkerHandle = { backend: 'process', pid: launched.pid, pidStart: launched.pidStart, pgid: launched.pid, ...identity(forksAt) };
    await record?.(handle);
    return handle;
  }

  // The same start through execa: a launch line the launcher cannot take, or no launcher here.
  async function launchWithExeca(spec: LaunchSpec, forksAt: number | undefined, record?: (handle: WorkerHandle) => void | Promise<void>): Promise<WorkerHandle> {
    const [file, ...args] = wrapperArgv(spec, { output: 'inherit' });
    // Loaded on this path only: the launcher starts the attempts (workers/launcher.ts).
    const { execa } = await import('execa');
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
      children.set(pid, { ended: subprocess, startedAt: Date.now(), launched: false });
      const handle: WorkerHandle = { backend: 'process', pid, pidStart: readPidStart(pid) ?? 0, pgid: pid, ...identity(forksAt) };
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
    const alive = () => isProcessAlive(handle.pid, handle.pidStart, handle);
    if (child && !child.launched) {
      const result = await child.ended;
      exitCode = result.exitCode ?? null;
      signal = result.signal ?? null;
    } else if (child) {
      // The wrapper's word, or its end without one (killed): whichever comes first. The look that
      // lost stops at once: a pending poll would hold the orchestrator's exit for its period.
      const looking = new AbortController();
      const result = await Promise.race([child.ended, untilGone(alive, looking.signal).then(() => ({ exitCode: undefined }))]);
      looking.abort();
      launcher?.forget(handle.pid);
      exitCode = result.exitCode ?? null;
      if (result.exitCode === undefined) ({ exitCode, signal } = zombieEnd(handle) ?? { exitCode: null, signal: null });
    } else {
      await untilGone(alive);
    }
    children.delete(handle.pid);
    if (ownsGroup(handle.pid, handle.pidStart, handle)) reapGroup(handle.pgid, () => ownsGroup(handle.pid, handle.pidStart, handle));
    // The wrapper's record holds the agent's own status; the wrapper's is only a fallback.
    const record = await readExitRecord(spec.attemptDir);
    if (record) return { exitCode: record.exitCode, signal: record.signal, durationMs: Date.now() - startedAt, stopped: false };
    return { exitCode, signal, durationMs: Date.now() - startedAt, stopped: false, reason: child ? 'the wrapper left no exit record' : 'ended while no orchestrator watched, with no exit record' };
  }

  async function isAlive(handle: WorkerHandle): Promise<boolean> {
    return isProcessAlive(handle.pid, handle.pidStart, handle);
  }

  async function stop(handle: WorkerHandle, options: StopOptions): Promise<void> {
    await stopGroup(handle, options, (h) => {
      const dir = readAttemptDir(h.pid);
      if (dir) writeFileSync(join(dir, SHUTDOWN_FILE), `${new Date().toISOString()}\n`);
    });
  }

  return { kind: 'process', launch, wait, isAlive, stop, close: () => launcher?.close() };
}

// What a handle says of the machine beside the pid: its boot and pid namespace, and its fork count before the start.
function identity(forksAt: number | undefined): { bootId?: string; pidNs?: string; forksAt?: number } {
  return { ...herePlace(), ...(forksAt !== undefined ? { forksAt } : {}) };
}

// Resolves once the process is gone (a zombie counts as gone), or once `signal` says to stop looking.
async function untilGone(alive: () => boolean, signal?: AbortSignal): Promise<void> {
  while (signal?.aborted !== true && alive()) await sleep(ADOPTED_POLL_MS, undefined, { signal }).catch(() => undefined);
}

// How a wrapper that ended without a word ended, while its zombie is not reaped yet.
function zombieEnd(handle: WorkerHandle): { exitCode: number | null; signal: string | null } | undefined {
  const end = readZombieEnd(handle.pid, handle.pidStart);
  if (!end) return undefined;
  return { exitCode: end.exitCode, signal: end.signal === null ? null : (signalName(end.signal) ?? null) };
}

function signalName(signal: number): string | undefined {
  return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
}

// A wrapper that started after its launch was given up on was never recorded: it is stopped at once.
function stopAbandoned(pid: number): void {
  signalGroup(pid, 'SIGKILL');
}

// sh and setsid on PATH, as absolute paths; undefined when either is missing. env and perl too, where
// there are.
function findPrograms(shell: boolean): LauncherPrograms | undefined {
  const sh = findOnPath('sh');
  const setsid = findOnPath('setsid');
  const env = findOnPath('env');
  const perl = shell ? undefined : findOnPath('perl');
  return sh && setsid ? { sh, setsid, ...(env && { env }), ...(perl && { perl }) } : undefined;
}

// Polite request, grace, SIGTERM to the group, SIGKILL; resolves when the group is gone.
export async function stopGroup(handle: WorkerHandle, options: StopOptions, askPolitely: (h: WorkerHandle) => void): Promise<void> {
  // A recycled pid leads someone else's group: never signal it, never write into its folder. Asked
  // again before each signal: the worker may end meanwhile and its pid go to another process.
  const ours = () => ownsGroup(handle.pid, handle.pidStart, handle);
  if (!ours()) return;
  if (!isProcessAlive(handle.pid, handle.pidStart, handle) && listGroupMembers(handle.pgid).length === 0) return;
  const gone = () => listGroupMembers(handle.pgid).length === 0;
  try {
    askPolitely(handle);
  } catch {
    // The request file is a courtesy; the signals below do the work.
  }
  if (isProcessAlive(handle.pid, handle.pidStart, handle)) signalGroup(handle.pgid, 'SIGINT');
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

// Members of a finished worker's group that linger (the agent's own children) are ended, and killed
// if the group is still there after the delay. No scan of /proc for them (it would cost every
// attempt's end a read of every process): the wrapper has reported its end, so the group's members
// that may still get the signal are its leader on its way out (it traps TERM) or its zombie, which
// no signal reaches, and a group already empty answers ESRCH.
function reapGroup(pgid: number, stillOurs: () => boolean): void {
  signalGroup(pgid, 'SIGTERM');
  setTimeout(() => {
    if (groupExists(pgid) && stillOurs()) signalGroup(pgid, 'SIGKILL');
  }, TERM_TO_KILL_MS).unref();
}
