import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BOOT_ID, isProcessAlive, readPidStart } from '../../src/sys/proc.js';
import { createProcessBackend } from '../../workers/process.js';
import type { WorkerHandle } from '../../workers/types.js';

describe('workers/proc (the boot a pid was recorded on)', () => {
  it('knows this boot\'s id', () => {
    expect(BOOT_ID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never counts a pid recorded on another boot as ours, even with its start time, and never signals it', async () => {
    const child = execa('sleep', ['30'], { detached: true, reject: false });
    const pid = child.pid!;
    try {
      const handle: WorkerHandle = { backend: 'process', pid, pidStart: readPidStart(pid)!, pgid: pid, bootId: '00000000-0000-0000-0000-000000000000' };
      const backend = createProcessBackend();

      expect(await backend.isAlive(handle)).toBe(false);
      await backend.stop(handle, { graceMs: 0 });
      expect(isProcessAlive(pid, handle.pidStart)).toBe(true);
      expect(await backend.isAlive({ ...handle, bootId: BOOT_ID })).toBe(true);
    } finally {
      process.kill(-pid, 'SIGKILL');
      await child;
    }
  });
});
