// The run lock: one orchestrator drives a run. A lock held by a dead process is taken over.
import { linkSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, readPidStart } from '../../workers/proc.js';
import { writeFileAtomic } from '../../workers/atomic.js';
import type { RunPaths } from '../checkpoint/store.js';
import { LockedError } from '../errors.js';

export const LOCK_FILE = 'lock.json';

export interface LockHolder {
  pid: number;
  pidStart: number;
  since: string;
  command: string;
}

// A takeover marker older than this was left by a taker that died inside the takeover.
const MARKER_STALE_MS = 5_000;

// Takes the lock or throws LockedError naming the live holder. A lock left by a dead holder is
// taken over through a marker named after that holder, created exclusively (link): of many
// simultaneous takeovers of one stale lock, one removes it; the others find a live lock after.
export function acquireLock(paths: RunPaths, command: string): () => void {
  const me: LockHolder = { pid: process.pid, pidStart: readPidStart(process.pid) ?? 0, since: new Date().toISOString(), command };
  const file = join(paths.runDir, LOCK_FILE);
  for (let tries = 0; tries < 50; tries++) {
    try {
      writeFileAtomic(paths.runDir, LOCK_FILE, `${JSON.stringify(me)}\n`, { fsync: true, exclusive: true });
      return () => releaseLock(paths, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const reading = readLock(file);
    if (reading === 'gone') continue;
    if (typeof reading === 'string') {
      throw new LockedError(`the lock file ${file} cannot be read (${reading}); if no orchestrator drives run ${paths.runDir.split('/').at(-1)}, remove that file and try again`);
    }
    if (isProcessAlive(reading.pid, reading.pidStart)) {
      throw new LockedError(`run ${paths.runDir.split('/').at(-1)} is driven by another orchestrator: pid ${reading.pid} (${reading.command}, since ${reading.since})`);
    }
    removeStale(file, reading);
  }
  throw new LockedError(`could not take the lock of ${paths.runDir}: another process keeps taking it`);
}

// Removes the lock file if it is still the stale one read; another taker of it makes this a no-op.
function removeStale(file: string, stale: LockHolder): void {
  const marker = `${file}.takeover-${stale.pid}-${stale.pidStart}`;
  try {
    linkSync(file, marker);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      dropDeadMarker(marker);
      // Another taker is inside: give it a moment to finish.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    else if (code !== 'ENOENT') throw error;
    return;
  }
  try {
    // The marker is the lock file as it was when linked: if it is still the stale holder's, no one
    // else may change the lock file now (that takes this marker, or the stale holder, who is dead).
    const linked = readLock(marker);
    if (typeof linked === 'object' && linked.pid === stale.pid && linked.pidStart === stale.pidStart && linked.since === stale.since) unlinkSync(file);
  } finally {
    unlinkSync(marker);
  }
}

// A marker whose taker died inside its takeover would block the lock for good: it is removed after a while.
function dropDeadMarker(marker: string): void {
  try {
    if (Date.now() - statSync(marker).ctimeMs > MARKER_STALE_MS) unlinkSync(marker);
  } catch {
    // Gone already: its taker finished.
  }
}

// The lock file's holder; 'gone' when there is none; a string saying why it cannot be read.
function readLock(file: string): LockHolder | 'gone' | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return (error as Error).message;
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    if (Number.isInteger(holder.pid) && Number.isInteger(holder.pidStart)) return holder;
  } catch {
    // Described below.
  }
  return 'not a lock record';
}

// The current holder, if the lock file is readable.
export function readLockHolder(paths: RunPaths): LockHolder | undefined {
  const reading = readLock(join(paths.runDir, LOCK_FILE));
  return typeof reading === 'object' ? reading : undefined;
}

// The live orchestrator of a run, if any.
export function liveHolder(paths: RunPaths): LockHolder | undefined {
  const holder = readLockHolder(paths);
  return holder && isProcessAlive(holder.pid, holder.pidStart) ? holder : undefined;
}

function releaseLock(paths: RunPaths, me: LockHolder): void {
  const holder = readLockHolder(paths);
  if (holder?.pid === me.pid && holder.pidStart === me.pidStart) unlinkSync(join(paths.runDir, LOCK_FILE));
}

// Signals the holder of a lock; false when it exited in between (ESRCH is no error).
export function signalHolder(holder: LockHolder, signal: NodeJS.Signals): boolean {
  try {
    process.kill(holder.pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}
