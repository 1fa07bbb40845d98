// Peak memory of the orchestrator over a long ralph run: 10 iterations of 50 tasks, the architect
// rejecting every iteration but the last, read from the kernel's high-water mark (VmHWM).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { AGENT, findPackageRoot } from './pipeline.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const ITERATIONS = Number(process.env.BENCH_RSS_ITERATIONS ?? 10);
const TASKS = Number(process.env.BENCH_RSS_TASKS ?? 50);
const WORKERS = 8;
// The budget for the orchestrator's peak resident memory.
const BUDGET_MB = 150;
// How often the high-water mark is read while the run lives.
const POLL_MS = 50;

// One row: the orchestrator's peak RSS against the budget.
export async function benchRss(): Promise<Comparison[]> {
  const root = findPackageRoot();
  const project = makeScratchDir('teamline-bench-rss-');
  mkdirSync(join(project, '.team'), { recursive: true });
  const env = { BENCH_TASKS: String(TASKS), BENCH_APPROVE_FROM: String(ITERATIONS) };
  const config = {
    team: { maxTasks: TASKS, maxFixLoops: 0 },
    ralph: { maxIterations: ITERATIONS },
    agents: { tiny: { adapter: 'command', command: 'sh', args: [join(root, AGENT)], env } },
  };
  writeFileSync(join(project, '.team', 'config.json'), JSON.stringify(config));
  const cli = TEAM_BIN;
  const child = spawn(process.execPath, [cli, 'ralph', `${WORKERS}:executor`, `bench: ${ITERATIONS} iterations of ${TASKS} tasks`, '--cwd', project, '--agent', 'tiny'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + String(chunk)).slice(-4000)));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let peakKb = 0;
  let running = true;
  void exit.then(() => (running = false));
  while (running) {
    peakKb = Math.max(peakKb, readPeakKb(child.pid!));
    await sleep(POLL_MS);
  }
  const code = await exit;
  if (code !== 0) throw new Error(`the ralph run exited ${code}:\n${stderr.split('\n').slice(-15).join('\n')}`);
  return [{ name: 'orchestrator RSS', detail: `ralph, ${ITERATIONS} iterations x ${TASKS} tasks, peak`, ms: peakKb / 1024, baselineMs: BUDGET_MB, target: 1, unit: 'MB' }];
}

// VmHWM of a live process in kB; 0 once it is gone.
function readPeakKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
