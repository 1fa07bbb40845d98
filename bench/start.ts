// Start-up of the read-only commands: `team status` on a small run and `team cancel` of an ended
// run, each a whole process, against `node -e 0` measured interleaved in the same run.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { appendEvent } from '../src/log/write.js';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { writeRun } from './parts/resume-log.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
// A small run: a plan of a dozen tasks, stopped in team-exec.
const EVENTS = 60;
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 11);
// `team cancel` may take at most this much over starting node at all.
const TARGET = 2;
// `team status` reads and checks every record of the run (zod, cold: its module, and the schemas of
// the records and the config, about 25 ms before any record is read), folds and renders them: it
// answers within this much of node's own start, so that on a machine whose node starts in 25-30 ms
// the whole command stays under the 100 ms a person takes for instant.
const STATUS_BUDGET_MS = 75;

// Rows for `team status` and `team cancel` (on an ended run: it reads, answers and exits).
export function benchStart(): Comparison[] {
  const root = makeScratchDir('teamline-bench-start-');
  const running = join(root, 'running');
  writeRun(running, EVENTS, 2);
  const ended = join(root, 'ended');
  const { paths, runId } = writeRun(ended, EVENTS, 2);
  appendEvent(paths, runId, { event: 'run_cancelled', reason: 'bench' }, { fsync: false });
  const commands = {
    node: [process.execPath, '-e', '0'],
    status: [process.execPath, CLI, 'status', '--cwd', running],
    cancel: [process.execPath, CLI, 'cancel', '--cwd', ended],
  };
  const times: Record<keyof typeof commands, number[]> = { node: [], status: [], cancel: [] };
  // One warm-up of each (disk cache, compile cache), then interleaved rounds.
  for (const [name, argv] of Object.entries(commands)) time(name, argv);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, argv] of Object.entries(commands)) times[name as keyof typeof commands].push(time(name, argv));
  }
  const baselineMs = median(times.node);
  return [
    { name: 'status start', detail: `team status, ${EVENTS}-event run, whole process, against node -e 0 + ${STATUS_BUDGET_MS} ms (${(median(times.status) / baselineMs).toFixed(2)}x node -e 0)`, ms: median(times.status), baselineMs: baselineMs + STATUS_BUDGET_MS, target: 1 },
    { name: 'cancel start', detail: 'team cancel of an ended run, whole process', ms: median(times.cancel), baselineMs, target: TARGET },
  ];
}

function time(name: string, argv: string[]): number {
  const t = performance.now();
  const result = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t;
  if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${String(result.stderr)}`);
  return ms;
}
