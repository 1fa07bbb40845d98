import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, ownsGroup, PID_NS, readPidStart } from '../../src/sys/proc.js';
import { createProcessBackend } from '../../workers/process.js';
import type { WorkerHandle } from '../../workers/types.js';

describe('workers/proc (the pid namespace a pid was recorded in)', () => {
  it('knows this process\'s pid namespace', () => {
    expect(PID_NS).toMatch(/^pid:\[\d+\]$/);
  });

  it('never counts a pid recorded in another pid namespace as ours, even with its start time, and never signals it', async () => {
    const child = execa('sleep', ['30'], { detached: true, reject: false });
    const pid = child.pid!;
    try {
      // A pid of another namespace names another process here: this one, by chance.
      const handle: WorkerHandle = { backend: 'process', pid, pidStart: readPidStart(pid)!, pgid: pid, pidNs: 'pid:[1]' };
      const backend = createProcessBackend();

      expect(await backend.isAlive(handle)).toBe(false);
      expect(ownsGroup(pid, handle.pidStart, handle)).toBe(false);
      await backend.stop(handle, { graceMs: 0 });
      expect(isProcessAlive(pid, handle.pidStart)).toBe(true);
      expect(await backend.isAlive({ ...handle, pidNs: PID_NS })).toBe(true);
    } finally {
      process.kill(-pid, 'SIGKILL');
      await child;
    }
  });
});
