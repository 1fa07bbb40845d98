// A writer in a process of its own, for the store tests: it holds a run's writer lock until killed.
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from '../helpers/team.js';

export interface WriterProcess {
  pid: number;
  /** kill -9, resolved once the process is gone. */
  crash(): Promise<void>;
}

// Runs test/fixtures/lock/<script> with `args`; resolves once it says it holds the lock.
export async function startWriter(script: string, args: string[]): Promise<WriterProcess> {
  const child = execa('node', [join(ROOT, 'test/fixtures/lock', script), ...args], { reject: false, buffer: false });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    void child.then((result) => reject(new Error(`${script} exited before it held the lock: ${String(result.stderr ?? '')}`)));
  });
  return {
    pid: child.pid!,
    crash: async () => {
      child.kill('SIGKILL');
      await child;
    },
  };
}
