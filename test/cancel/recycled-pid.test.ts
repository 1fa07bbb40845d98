import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessBackend, stopGroup } from '../../workers/process.js';
import { isProcessAlive, readPidStart } from '../../src/sys/proc.js';
import { createTmuxBackend } from '../../workers/tmux/index.js';
import type { LaunchSpec, WorkerHandle } from '../../workers/types.js';
import { isRunning } from '../helpers/proc-groups.js';

// Short enough for a unit test; a stop that escalates does so right after it.
const GRACE_MS = 300;

const strangers: ResultPromise[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const stranger of strangers.splice(0)) {
    // A leader's children (the `sleep` of `sh -c`) hold its output open: end the whole group we started.
    try {
      process.kill(-stranger.pid!, 'SIGKILL');
    } catch {
      stranger.kill('SIGKILL');
    }
    await stranger;
  }
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// A process that is not ours but holds the pid a handle recorded. `leader`: it leads its own
// process group, as a shell job, a daemon or another run's worker does.
function startStranger(leader: boolean, argv: string[] = ['sleep', '600']): { pid: number; start: number } {
  const stranger = execa(argv[0]!, argv.slice(1), { detached: leader, reject: false, stdin: 'ignore' });
  strangers.push(stranger);
  const pid = stranger.pid!;
  const start = readPidStart(pid)!;
  expect(start).toBeGreaterThan(0);
  return { pid, start };
}

// The handle a crashed run left for a worker long gone: same pid number, another start time.
function staleHandle(pid: number, start: number): Extract<WorkerHandle, { backend: 'process' }> {
  return { backend: 'process', pid, pidStart: start - 1, pgid: pid };
}

function makeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-recycled-'));
  folders.push(dir);
  return dir;
}

describe('workers/proc isProcessAlive', () => {
  it('tells the recorded process from another one with the same pid', () => {
    const { pid, start } = startStranger(false);
    expect(isProcessAlive(pid, start)).toBe(true);
    expect(isProcessAlive(pid, start - 1)).toBe(false);
  });
});

describe('workers/process stopGroup', () => {
  it('stops the very process a handle names (the control for the tests below)', async () => {
    const { pid, start } = startStranger(true);
    await stopGroup({ backend: 'process', pid, pidStart: start, pgid: pid }, { graceMs: GRACE_MS }, () => {});
    expect(isRunning(pid)).toBe(false);
  });

  it('leaves alone a process that holds a recycled pid inside another group', async () => {
    const { pid, start } = startStranger(false);
    await stopGroup(staleHandle(pid, start), { graceMs: GRACE_MS }, () => {});
    await sleep(100);
    expect(isRunning(pid)).toBe(true);
  });

  it('leaves alone a process that holds a recycled pid and leads its own group', async () => {
    const { pid, start } = startStranger(true);
    let asked = false;
    await stopGroup(staleHandle(pid, start), { graceMs: GRACE_MS }, () => {
      asked = true;
    });
    await sleep(100);
    expect.soft(asked).toBe(false);
    expect(isRunning(pid)).toBe(true);
  });
});

describe('workers/process backend', () => {
  it('stop writes no shutdown file into the folder a stranger with a recycled pid names', async () => {
    const victim = makeFolder();
    // The shape of a wrapper's command line (`sh -c <script> sh <dir>`), run by someone else.
    const { pid, start } = startStranger(true, ['sh', '-c', 'sleep 600; :', 'sh', victim]);
    await createProcessBackend().stop(staleHandle(pid, start), { graceMs: GRACE_MS });
    await sleep(100);
    expect.soft(existsSync(join(victim, 'shutdown'))).toBe(false);
    expect(isRunning(pid)).toBe(true);
  });

  it('wait on an adopted handle whose pid was recycled leaves the new owner alone', async () => {
    const attemptDir = makeFolder();
    const { pid, start } = startStranger(true);
    const spec: LaunchSpec = { runId: 'r', taskId: 't1', attempt: 1, worker: 'worker-1', attemptDir, cwd: attemptDir, command: { file: 'sim', args: [] }, env: {} };
    const exit = await createProcessBackend().wait(staleHandle(pid, start), spec);
    expect(exit.stopped).toBe(false);
    await sleep(GRACE_MS);
    expect(isRunning(pid)).toBe(true);
  });
});

describe('workers/tmux stop', () => {
  it('leaves alone a process that holds the recycled pid of a pane whose server is gone', async () => {
    const socketDir = makeFolder();
    mkdirSync(join(socketDir, 'sockets'));
    const { pid, start } = startStranger(true);
    const handle: WorkerHandle = { backend: 'tmux', server: 'team-gone', socketDir: join(socketDir, 'sockets'), paneId: '%1', window: 'worker-1', pid, pidStart: start - 1, pgid: pid };
    await createTmuxBackend({ socketDir: join(socketDir, 'sockets') }).stop(handle, { graceMs: GRACE_MS });
    await sleep(100);
    expect(isRunning(pid)).toBe(true);
  });
});
