import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { signalHolder } from '../../src/store/files/lock.js';

describe('runtime/lock', () => {
  it('reports a lock holder that exited before the signal as gone, without an error', async () => {
    const child = execa('true');
    const pid = child.pid!;
    await child;

    expect(signalHolder({ pid, pidStart: 0, since: '', command: 'team run' }, 'SIGTERM')).toBe(false);
  });

  it('signals a live lock holder', async () => {
    const child = execa('sleep', ['30'], { reject: false });

    expect(signalHolder({ pid: child.pid!, pidStart: 0, since: '', command: 'team run' }, 'SIGTERM')).toBe(true);
    expect((await child).signal).toBe('SIGTERM');
  });
});
