// The run lock: one orchestrator drives a run. A lock held by a dead process is taken over.
import { linkSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BOOT_ID, PID_NS, readPidStart } from '../../sys/proc.js';
import { writeFileAtomic } from '../../sys/atomic.js';
import { readRegularFile } from '../../sys/regular-file.js';
import type { RunPaths } from '../../log/write.js';
import { LockedError } from '../../sys/errors.js';
import { holderAlive, inOtherNamespace, keepBeating, type LockHolder } from './lock-life.js';

// Whether a holder runs in another pid namespace (its pid cannot be checked from here).
export { inOtherNamespace, type LockHolder } from './lock-life.js';

export const LOCK_FILE = 'lock.json';


// A takeover marker this old (wall clock), or seen unchanged this long (this process's own clock,
// which a clock set back cannot fool), was left by a taker that died inside its takeover.
const MARKER_STALE_MS = 5_000;
// How long a taker keeps trying: longer than a dead taker's marker can hold it up.
const ACQUIRE_LIMIT_MS = 3 * MARKER_STALE_MS;
// Test only: a pause inside a takeover (marker made, stale lock not yet removed), which makes
// simultaneous takeovers overlap and lets a test kill a taker there. Unset in real use.
const TEST_TAKEOVER_DELAY_MS = Number(process.env.TEAMLINE_TEST_TAKEOVER_DELAY_MS ?? 0);

// The lock is held by a live orchestrator (named in the message): one that can be asked.
export class HeldLockError extends LockedError {}

// Takes the lock or throws LockedError (HeldLockError) naming the live holder. A lock left by a dead holder is
// taken over through a marker named after that holder, created exclusively (link): of many
// simultaneous takeovers of one stale lock, one removes it; the others find a live lock after.
export function acquireLock(paths: RunPaths, command: string): () => void {
  const me: LockHolder = { pid: process.pid, pidStart: readPidStart(process.pid) ?? 0, since: new Date().toISOString(), command, pidNs: PID_NS, bootId: BOOT_ID };
  const file = join(paths.runDir, LOCK_FILE);
  const markerIsDead = makeMarkerWatch();
  const deadline = performance.now() + ACQUIRE_LIMIT_MS;
  while (performance.now() < deadline) {
    try {
      writeFileAtomic(paths.runDir, LOCK_FILE, `${JSON.stringify(me)}\n`, { fsync: true, exclusive: true });
      const stopBeating = keepBeating(file, () => isMine(readLockHolder(paths), me));
      return () => {
        stopBeating();
        releaseLock(paths, me);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const reading = readLock(file);
    if (reading === 'gone') continue;
    if (typeof reading === 'string') {
      throw new LockedError(`the lock file ${file} cannot be read (${reading}); if no orchestrator drives run ${paths.runDir.split('/').at(-1)}, remove that file and try again`);
    }
    if (holderAlive(file, reading)) {
      throw new HeldLockError(`run ${paths.runDir.split('/').at(-1)} is driven by another orchestrator: pid ${reading.pid}${inOtherNamespaceNote(reading)} (${reading.command}, since ${reading.since})`);
    }
    removeStale(file, reading, markerIsDead);
  }
  throw new LockedError(`could not take the lock of ${paths.runDir}: another process keeps taking it`);
}

// Removes the lock file if it is still the stale one read; another taker of it makes this a no-op.
function removeStale(file: string, stale: LockHolder, markerIsDead: (marker: string) => boolean): void {
  const marker = `${file}.takeover-${stale.pid}-${stale.pidStart}`;
  try {
    linkSync(file, marker);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (markerIsDead(marker)) removeIfThere(marker);
      // Another taker is inside: give it a moment to finish.
      else pause(5);
    }
    else if (code !== 'ENOENT') throw error;
    return;
  }
  try {
    if (TEST_TAKEOVER_DELAY_MS > 0) pause(TEST_TAKEOVER_DELAY_MS);
    // The marker is the lock file as it was when linked: if it is still the stale holder's, no one
    // else may change the lock file now (that takes this marker, or the stale holder, who is dead).
    const linked = readLock(marker);
    if (typeof linked === 'object' && linked.pid === stale.pid && linked.pidStart === stale.pidStart && linked.since === stale.since) removeIfThere(file);
  } finally {
    removeIfThere(marker);
  }
}

// Judges takeover markers; a marker is known by its inode and change time, so a new one starts afresh.
function makeMarkerWatch(): (marker: string) => boolean {
  const firstSeen = new Map<string, number>();
  return (marker) => {
    let stat;
    try {
      stat = statSync(marker);
    } catch {
      return false;
    }
    const key = `${stat.ino}:${stat.ctimeMs}`;
    const seen = firstSeen.get(key) ?? performance.now();
    firstSeen.set(key, seen);
    return Date.now() - stat.ctimeMs > MARKER_STALE_MS || performance.now() - seen > MARKER_STALE_MS;
  };
}

// Removes a file another taker may have removed first.
function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

// Blocks this process for `ms` (the lock is taken synchronously).
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// A lock record is a line of JSON; a bigger file is not one.
const LOCK_BYTES = 64 * 1024;

// The lock file's holder; 'gone' when there is none; a string saying why it cannot be read (a
// FIFO, a link or a folder in its place is refused at once, never waited on).
function readLock(file: string): LockHolder | 'gone' | string {
  const reading = readRegularFile(file, LOCK_BYTES);
  if (!reading.ok) return reading.missing ? 'gone' : reading.reason;
  try {
    const holder = JSON.parse(reading.text) as LockHolder;
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

// The live orchestrator of a run, if any: one in another pid namespace counts as live while its
// heartbeat is fresh (lock-life.ts).
export function liveHolder(paths: RunPaths): LockHolder | undefined {
  const holder = readLockHolder(paths);
  return holder && holderAlive(join(paths.runDir, LOCK_FILE), holder) ? holder : undefined;
}

// Whether the holder read before still drives the run.
export function holderStillAlive(paths: RunPaths, holder: LockHolder): boolean {
  return holderAlive(join(paths.runDir, LOCK_FILE), holder);
}

function inOtherNamespaceNote(holder: LockHolder): string {
  return inOtherNamespace(holder) ? ' in another process namespace' : '';
}

function isMine(holder: LockHolder | undefined, me: LockHolder): boolean {
  return holder?.pid === me.pid && holder.pidStart === me.pidStart && holder.since === me.since;
}

function releaseLock(paths: RunPaths, me: LockHolder): void {
  if (isMine(readLockHolder(paths), me)) unlinkSync(join(paths.runDir, LOCK_FILE));
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
