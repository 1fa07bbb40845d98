// The exec stage's baseline of the pipeline benchmark: the same agent processes (same script, same
// environment shape, writing their result files), `workers` at a time, by a plain execa loop: no
// log, no records, no fsync.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { agentAttempt } from './agent-env.js';

// Returns how long the `tasks` processes took.
export async function runPlain(dir: string, agent: string, tasks: number, workers: number): Promise<number> {
  mkdirSync(dir, { recursive: true });
  let next = 0;
  const worker = async (name: string) => {
    while (next < tasks) {
      const id = `t${++next}`;
      const { env, resultFile } = agentAttempt(dir, id, 'team-exec', 'executor', name, tasks);
      const result = await execa('sh', [agent], { cwd: dir, env, stdin: 'ignore', reject: false });
      if (result.exitCode !== 0 || !existsSync(resultFile)) throw new Error(`plain ${id} exited ${result.exitCode} without its result`);
      JSON.parse(readFileSync(resultFile, 'utf8'));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(`worker-${i + 1}`)));
  return performance.now() - started;
}
