// The run lock: one orchestrator drives a run. A lock held by a dead process is taken over.
import { readFileSync, unlinkSync } from 'node:fs';
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

// Takes the lock or throws LockedError naming the live holder.
export function acquireLock(paths: RunPaths, command: string): () => void {
  const me: LockHolder = { pid: process.pid, pidStart: readPidStart(process.pid) ?? 0, since: new Date().toISOString(), command };
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileAtomic(paths.runDir, LOCK_FILE, `${JSON.stringify(me)}\n`, { fsync: true, exclusive: true });
      return () => releaseLock(paths, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLockHolder(paths);
    if (holder && isProcessAlive(holder.pid, holder.pidStart)) {
      throw new LockedError(`run ${paths.runDir.split('/').at(-1)} is driven by another orchestrator: pid ${holder.pid} (${holder.command}, since ${holder.since})`);
    }
    // Stale: its holder is gone (or the file is torn). Remove it and try again.
    try {
      unlinkSync(join(paths.runDir, LOCK_FILE));
    } catch {
      // Another process removed it first.
    }
  }
  throw new LockedError(`could not take the lock of ${paths.runDir}: another process keeps taking it`);
}

// The current holder, if the lock file is readable.
export function readLockHolder(paths: RunPaths): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(join(paths.runDir, LOCK_FILE), 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
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
