// How an ended process that nobody reaped (a zombie) ended, read from /proc: what a tmux pane's
// end falls back to when tmux marks the pane dead but never fills in its status.
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { readPidStart, readProcStat, readZombieEnd, waitUntil } from '../../src/sys/proc.js';

const parents: ResultPromise[] = [];
afterEach(async () => {
  for (const parent of parents.splice(0)) {
    parent.kill('SIGKILL');
    await parent.catch(() => undefined);
  }
});

// A child that runs `script` under a parent that never waits for it (sleep, after exec): it stays a
// zombie. The child waits until its parent is sleep, so that the shell before the exec cannot reap it.
async function unreaped(script: string): Promise<{ pid: number; start: number }> {
  const child = `until [ "$(cat /proc/$PPID/comm)" = sleep ]; do :; done; ${script}`;
  const parent = execa('sh', ['-c', `sh -c '${child}' & echo $!; exec sleep 30`], { buffer: false });
  parents.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
  const start = readPidStart(pid)!;
  expect(await waitUntil(() => readProcStat(pid)?.state === 'Z', 5_000)).toBe(true);
  return { pid, start };
}

describe('workers/proc readZombieEnd', () => {
  it('reads the signal that killed a process nobody reaped', async () => {
    const { pid, start } = await unreaped('kill -9 $$');
    expect(readZombieEnd(pid, start)).toEqual({ exitCode: null, signal: 9 });
  });

  it('reads the exit code of a process nobody reaped', async () => {
    const { pid, start } = await unreaped('exit 3');
    expect(readZombieEnd(pid, start)).toEqual({ exitCode: 3, signal: null });
  });

  it('says nothing of a live process, of another start time, or of a pid that is gone', async () => {
    const { pid, start } = await unreaped('exit 0');
    expect(readZombieEnd(pid, start + 1)).toBeUndefined();
    expect(readZombieEnd(process.pid, readPidStart(process.pid)!)).toBeUndefined();
    expect(readZombieEnd(2 ** 22 + 7, 1)).toBeUndefined();
  });
});
