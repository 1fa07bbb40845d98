// Whether a run lock's holder is alive. In our pid namespace its pid and start time say so. In
// another one (an agent CLI's sandbox runs commands in a namespace of its own) the pid names
// another process here, or none: the holder counts as alive unless sound evidence says it is gone,
// which is another boot, or a heartbeat (the lock file's modification time, which the holder
// renews every few seconds) older than the staleness bound. A lock of an older version records no
// namespace and is judged by its pid, as before.
import { statSync, utimesSync } from 'node:fs';
import { isProcessAlive, otherBoot, PID_NS } from '../../sys/proc.js';

// Who holds a run's lock (lock.json).
export interface LockHolder {
  /** The holder's pid in its own pid namespace. */
  pid: number;
  pidStart: number;
  since: string;
  command: string;
  /** The holder's pid namespace (/proc/self/ns/pid); absent in locks of older versions. */
  pidNs?: string;
  /** The boot the holder ran in; absent in locks of older versions. */
  bootId?: string;
}

// How often a holder renews its heartbeat.
export const HEARTBEAT_MS = 5_000;
// A heartbeat older than this is a holder gone (the status freshness bound, 30 s): six beats missed.
export const HEARTBEAT_STALE_MS = 30_000;

// True when the holder ran in a pid namespace other than ours (or ours cannot be read).
export function inOtherNamespace(holder: LockHolder): boolean {
  return holder.pidNs !== undefined && holder.pidNs !== PID_NS;
}

// Whether the holder of the lock `file` still drives the run.
export function holderAlive(file: string, holder: LockHolder): boolean {
  if (otherBoot(holder.bootId)) return false;
  if (!inOtherNamespace(holder)) return isProcessAlive(holder.pid, holder.pidStart);
  let beat: number;
  try {
    beat = statSync(file).mtimeMs;
  } catch {
    // The lock file went: its holder released it.
    return false;
  }
  return Date.now() - beat <= HEARTBEAT_STALE_MS;
}

// Renews the heartbeat of the lock `file` every HEARTBEAT_MS while `mine()` holds; returns the stop.
export function keepBeating(file: string, mine: () => boolean): () => void {
  const timer = setInterval(() => {
    try {
      if (mine()) utimesSync(file, new Date(), new Date());
    } catch {
      // A beat missed: the next one, or the staleness bound, tells.
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
