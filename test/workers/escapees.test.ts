// Escaped descendants (a new session, as `setsid` makes) found by their attempt's marker and stopped;
// attempts that end together share one look at /proc, and each stops only its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { findEscapees, stopEscapees, type AttemptMarker } from '../../workers/escapees.js';
import { isProcessAlive, readPidStart, waitUntil } from '../../workers/proc.js';

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
