// Escaped descendants (a new session, as `setsid` makes) found by their attempt's marker and stopped;
// attempts that end together share one look at /proc, and each stops only its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { findEscapees, findRunLeftovers, stopEscapees, stopRunLeftovers, type AttemptMarker } from '../../workers/escapees.js';
import { isProcessAlive, mayBeNewer, PID_MAX, readForkCount, readPidStart, waitUntil } from '../../src/sys/proc.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

// A process in a session of its own carrying an attempt's marker, as an agent's daemon would.
function escapee(marker: Omit<AttemptMarker, 'since'>): { pid: number; start: number } {
  const env = { ...process.env, TEAM_RUN_ID: marker.runId, TEAM_TASK_ID: marker.taskId, TEAM_ATTEMPT: String(marker.attempt) };
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore', env });
  started.push(child);
  return { pid: child.pid!, start: readPidStart(child.pid!)! };
}

const runId = `escapees-${process.pid}-${Date.now()}`;

describe('workers/escapees', () => {
  it('stops the escapees of attempts that end together, each attempt only its own', async () => {
    const a = escapee({ runId, taskId: 't1', attempt: 1 });
    const b = escapee({ runId, taskId: 't2', attempt: 1 });
    const other = escapee({ runId, taskId: 't3', attempt: 1 });
    const [stoppedA, stoppedB] = await Promise.all([
      stopEscapees({ runId, taskId: 't1', attempt: 1, since: a.start }),
      stopEscapees({ runId, taskId: 't2', attempt: 1, since: b.start }),
    ]);
    expect([stoppedA, stoppedB]).toEqual([1, 1]);
    expect(await waitUntil(() => !isProcessAlive(a.pid, a.start) && !isProcessAlive(b.pid, b.start), 5_000)).toBe(true);
    expect(isProcessAlive(other.pid, other.start)).toBe(true);
    expect(findEscapees({ runId, taskId: 't3', attempt: 1, since: other.start })).toEqual([other.pid]);
  });

  it('leaves a process with the marker that started before the attempt', async () => {
    const old = escapee({ runId, taskId: 't4', attempt: 1 });
    expect(await stopEscapees({ runId, taskId: 't4', attempt: 1, since: old.start + 1 })).toBe(0);
    expect(isProcessAlive(old.pid, old.start)).toBe(true);
  });
});

describe('workers/escapees of finished attempts, as a takeover looks for them', () => {
  it('finds the processes of the run\'s finished attempts only, started with the attempt or later, and stops them', async () => {
    const leftover = escapee({ runId, taskId: 'f1', attempt: 2 });
    const running = escapee({ runId, taskId: 'f2', attempt: 1 });
    const earlier = escapee({ runId, taskId: 'f3', attempt: 1 });
    const otherRun = escapee({ runId: `${runId}-other`, taskId: 'f1', attempt: 2 });
    // f1#2 and f3#1 finished (f3's first process started after the one found carrying its marker); f2#1 still runs.
    const finished = new Map([
      ['f1#2', leftover.start],
      ['f1#1', 0],
      ['f3#1', earlier.start + 1],
    ]);
    expect(findRunLeftovers(runId, finished)).toEqual([leftover.pid]);
    expect(await stopRunLeftovers(runId, finished)).toBe(1);
    expect(await waitUntil(() => !isProcessAlive(leftover.pid, leftover.start), 5_000)).toBe(true);
    for (const other of [running, earlier, otherRun]) expect(isProcessAlive(other.pid, other.start)).toBe(true);
    expect(findRunLeftovers(runId, new Map())).toEqual([]);
  });
});

describe('workers/proc mayBeNewer', () => {
  const max = PID_MAX!;
  it('admits the pids handed out after a process, up to as many as forks since (and the reserved pids of a wrap)', () => {
    expect(mayBeNewer(1_010, { pid: 1_000, forks: 50 }, 60)).toBe(true);
    expect(mayBeNewer(1_000, { pid: 1_000, forks: 50 }, 60)).toBe(false);
    expect(mayBeNewer(999, { pid: 1_000, forks: 50 }, 60)).toBe(false);
    expect(mayBeNewer(1_000 + 400, { pid: 1_000, forks: 50 }, 60)).toBe(false);
    // Past the top of the pid space, allocation goes on from the low pids.
    expect(mayBeNewer(305, { pid: max - 2, forks: 50 }, 60)).toBe(true);
    expect(mayBeNewer(max - 3, { pid: max - 2, forks: 50 }, 60)).toBe(false);
  });

  it('admits every pid once the forks since could have gone round the whole pid space', () => {
    expect(mayBeNewer(5, { pid: 1_000, forks: 0 }, max)).toBe(true);
    expect(mayBeNewer(999, { pid: 1_000, forks: 0 }, max)).toBe(true);
  });
});

describe('workers/escapees with the fork count', () => {
  it('finds an escapee started after the attempt, reading only the pids handed out since', async () => {
    const forks = readForkCount()!;
    const first = escapee({ runId, taskId: 't5', attempt: 1 });
    const later = escapee({ runId, taskId: 't5', attempt: 1 });
    const marker = { runId, taskId: 't5', attempt: 1, since: first.start, after: { pid: first.pid, forks } };
    // The first process is the attempt's own (its worker): its later descendant is the escapee.
    expect(findEscapees(marker)).toEqual([later.pid]);
    expect(findEscapees({ ...marker, after: undefined }).sort()).toEqual([first.pid, later.pid].sort());
  });
});
