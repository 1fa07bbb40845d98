// A pid or group id of 0 or 1 (a corrupted record, a pid read as 0) is never signalled: kill(0)
// would hit the caller's own process group, kill(-1) every process it may signal.
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

const PROC = join(ROOT, 'dist/src/sys/proc.js');

describe('workers/proc guards', () => {
  it('sends nothing to group 0 or process 0: the caller and its group live on', async () => {
    // In a process group of its own, so that a missing guard would end only that child.
    const child = await execa('node', ['--input-type=module', '-e', `const p = await import(${JSON.stringify(PROC)}); p.signalGroup(0, 'SIGTERM'); p.signalProcess(0, 'SIGTERM'); p.signalGroup(-5, 'SIGTERM'); p.signalProcess(Number.NaN, 'SIGTERM'); console.log('alive');`], { detached: true, reject: false, stdin: 'ignore' });
    expect(child.signal).toBeUndefined();
    expect(child.exitCode, String(child.stderr)).toBe(0);
    expect(child.stdout).toBe('alive');
  });
});
