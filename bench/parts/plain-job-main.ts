// `node dist/bench/parts/plain-job-main.js <dir> <agent> <tasks> <workers>`: the whole job of a pipeline run
// done by the plainest script, as a process of its own, for the pipeline benchmark's job row: the
// planner's attempt, the tasks of its plan (`workers` at a time), the verifier's. Node's own
// child_process and no library, so that its start is node's alone (execa's modules, unbundled,
// take about 150 ms to import here).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { agentAttempt } from './agent-env.js';

const [dir, agent, taskCount, workerCount] = process.argv.slice(2);
const tasks = Number(taskCount);
const workers = Number(workerCount);
if (!dir || !agent || !Number.isInteger(tasks) || !Number.isInteger(workers) || tasks < 1 || workers < 1) {
  process.stderr.write('usage: plain-job-main.js <dir> <agent> <tasks> <workers>\n');
  process.exit(2);
}

// One attempt: the agent run to its end, its result file read back.
function run(id: string, stage: string, role: string, worker: string): Promise<unknown> {
  const { env, resultFile } = agentAttempt(dir!, id, stage, role, worker, tasks);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [agent!], { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0 || !existsSync(resultFile)) return reject(new Error(`plain ${id} exited ${code} without its result`));
      resolve(JSON.parse(readFileSync(resultFile, 'utf8')));
    });
  });
}

const plan = (await run('plan', 'team-plan', 'planner', 'lead')) as { tasks?: Array<{ id: string }> };
const ids = (plan.tasks ?? []).map((t) => t.id);
if (ids.length !== tasks) throw new Error(`the planner planned ${ids.length} tasks, not ${tasks}`);
let next = 0;
await Promise.all(
  Array.from({ length: workers }, async (_, i) => {
    while (next < ids.length) await run(ids[next++]!, 'team-exec', 'executor', `worker-${i + 1}`);
  }),
);
const verdict = (await run('verify-1', 'team-verify', 'verifier', 'lead')) as { verdict?: string };
if (verdict.verdict !== 'pass') throw new Error(`the verifier said ${String(verdict.verdict)}`);
