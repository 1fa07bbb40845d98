// The whole pipeline (the real CLI: machine, checkpoint with fsync, wrapper, watchdog) against a
// plain execa loop running the same agent processes with the same concurrency, in the same run.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { growthRow, sizesFrom, type Comparison } from './parts/compare.js';
import { runPlain } from './parts/plain.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

// Task counts: the issue's workload is 200 trivial tasks on 8 workers; the others show growth.
// BENCH_PIPELINE_TASKS="200" to run only that one.
const SIZES = sizesFrom('BENCH_PIPELINE_TASKS', [50, 200, 1_000]);
const TARGET_SIZE = 200;
// Rounds at that size (each a baseline, the pipeline and the baseline again); its rows show the median.
const TARGET_ROUNDS = roundsFrom(process.env.BENCH_PIPELINE_ROUNDS);

function roundsFrom(text: string | undefined): number {
  if (text === undefined || text === '') return 3;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`BENCH_PIPELINE_ROUNDS: expected a number of rounds such as 3, not "${text}"`);
  return rounds;
}
const WORKERS = 8;
// Orchestration may cost at most this much over running the same processes by hand.
const TARGET = 1.3;
const RUN_TARGET = 1.5;
// Time per task at the largest size over that at the smallest.
const GROWTH_TARGET = 1.5;
// The agent: a sh script writing its stage's result (a plan of TASKS independent tasks, completed, pass).
export const AGENT = join('test', 'fixtures', 'agents', 'bench-agent.sh');

interface PipelineTimes {
  /** From starting the CLI to its exit. */
  wallMs: number;
  /** From the first team-exec task_started to the last team-exec task_finished in the log. */
  execMs: number;
}

// Per size: the pipeline against the plain loop, and the growth of the exec time per task.
export async function benchPipeline(): Promise<Comparison[]> {
  const rows: Comparison[] = [];
  const exec: Array<{ size: number; ms: number }> = [];
  for (const tasks of SIZES) {
    // The issue's targets are for 200 tasks; the other sizes show growth.
    const targeted = tasks === TARGET_SIZE;
    const rounds: Round[] = [];
    for (let i = 0; i < (targeted ? TARGET_ROUNDS : 1); i++) rounds.push(await measureSize(tasks, targeted));
    const execRound = medianRound(rounds, (r) => r.team.execMs / r.baselineMs);
    const runRound = medianRound(rounds, (r) => r.team.wallMs / r.baselineMs);
    exec.push({ size: tasks, ms: execRound.team.execMs });
    const perTask = (ms: number, baselineMs: number) => `${((ms - baselineMs) / tasks).toFixed(1)} ms/task over`;
    const of = (round: Round) => (rounds.length > 1 ? `; median of ${rounds.length} rounds` : '') + `; a new file took ${round.newFileUs.toFixed(0)} µs`;
    rows.push({ name: 'pipeline exec', detail: `${tasks} tasks, ${WORKERS} workers, fsync; ${perTask(execRound.team.execMs, execRound.baselineMs)}${of(execRound)}`, ms: execRound.team.execMs, baselineMs: execRound.baselineMs, ...(targeted && { target: TARGET }) });
    rows.push({ name: 'pipeline run', detail: `${tasks} tasks: whole run (start, plan, verify); ${perTask(runRound.team.wallMs, runRound.baselineMs)}${of(runRound)}`, ms: runRound.team.wallMs, baselineMs: runRound.baselineMs, ...(targeted && { target: RUN_TARGET }) });
    // The same whole run against a script of raw spawns doing the same job (its node start, planner,
    // tasks and verifier, through node:child_process): what the orchestration costs over the rawest
    // way to run those agents. No target of its own; the row above keeps the issue's.
    if (targeted) {
      const jobRound = medianRound(rounds, (r) => r.team.wallMs / r.jobMs!);
      rows.push({ name: 'pipeline job', detail: `${tasks} tasks: whole run against a script of raw spawns doing the job${rounds.length > 1 ? `; median of ${rounds.length} rounds` : ''}`, ms: jobRound.team.wallMs, baselineMs: jobRound.jobMs!, untargeted: 'the row above holds the whole run\'s' });
    }
  }
  if (exec.length > 1) rows.push(growthRow('pipeline growth', 'task', exec, GROWTH_TARGET));
  return rows;
}

interface Round {
  baselineMs: number;
  /** The raw-spawn script's whole job, as a process (plain-job-main.ts); at the targeted size only. */
  jobMs?: number;
  team: PipelineTimes;
  /** What creating one file cost just before the round (timeNewFiles). */
  newFileUs: number;
}

// The round whose ratio is the median of the rounds' (one round of three slowed by the host moves nothing).
function medianRound(rounds: Round[], ratio: (round: Round) => number): Round {
  return [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
}

// Baseline, pipeline, baseline again: the baseline is the mean of the two, spreading drift on a shared machine.
async function measureSize(tasks: number, withJob: boolean): Promise<Round> {
  const root = findPackageRoot();
  const agent = join(root, AGENT);
  const dir = makeScratchDir('teamline-bench-pipeline-');
  const newFileUs = timeNewFiles(join(dir, 'probe'));
  const before = await runPlain(join(dir, 'plain-1'), agent, tasks, WORKERS);
  const jobMs = withJob ? await runPlainJob(join(dir, 'job'), root, agent, tasks) : undefined;
  const team = await runPipeline(join(dir, 'team'), agent, tasks);
  const after = await runPlain(join(dir, 'plain-2'), agent, tasks, WORKERS);
  return { baselineMs: (before + after) / 2, ...(jobMs !== undefined && { jobMs }), team, newFileUs };
}

// What creating a file costs on this disk right now, in microseconds: the pipeline creates about
// three times the baseline's files per task (its events, prompt and the wrapper's records, as SPEC
// lays them out), so the ratio rises when the file system is slow to find free inodes (right after
// many files were removed, on the journal-less ext4 of these machines). Printed beside the row.
function timeNewFiles(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const count = 300;
  const started = performance.now();
  for (let i = 0; i < count; i++) closeSync(openSync(join(dir, `f${i}`), 'wx'));
  return ((performance.now() - started) * 1000) / count;
}

// The real CLI in a fresh project whose only agent is the tiny one; the exec span comes from the log.
// The baselines run their agents unfenced, and so does this run (team.fence off): what the fence
// costs an attempt is the fence row's (bench/fence.ts), not counted twice here.
async function runPipeline(project: string, agent: string, tasks: number): Promise<PipelineTimes> {
  mkdirSync(join(project, '.team'), { recursive: true });
  const config = {
    team: { maxTasks: tasks, fence: 'off' },
    agents: { tiny: { adapter: 'command', command: 'sh', args: [agent], env: { BENCH_TASKS: String(tasks) } } },
  };
  writeFileSync(join(project, '.team', 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  const started = performance.now();
  const result = await execa(process.execPath, [TEAM_BIN, `${WORKERS}:executor`, `bench: ${tasks} trivial tasks`, '--cwd', project, '--agent', 'tiny'], { reject: false, stdin: 'ignore' });
  const wallMs = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`the pipeline run exited ${result.exitCode}:\n${String(result.stderr).split('\n').slice(-15).join('\n')}`);
  return { wallMs, execMs: measureExecSpan(project, tasks) };
}

// The plain script's whole job, timed as the pipeline's run is: from its start to its exit.
async function runPlainJob(dir: string, root: string, agent: string, tasks: number): Promise<number> {
  const script = join(root, 'dist', 'bench', 'parts', 'plain-job-main.js');
  const started = performance.now();
  const result = await execa(process.execPath, [script, dir, agent, String(tasks), String(WORKERS)], { reject: false, stdin: 'ignore' });
  const ms = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`the plain job exited ${result.exitCode}:\n${String(result.stderr).split('\n').slice(-15).join('\n')}`);
  return ms;
}

// The exec stage's span, from the event files' microsecond stamps; checks every task completed.
function measureExecSpan(project: string, tasks: number): number {
  const runs = join(project, '.team', 'runs');
  const eventsDir = join(runs, readFileSync(join(runs, 'current'), 'utf8').trim(), 'events');
  let first = Infinity;
  let last = -Infinity;
  let completed = 0;
  for (const name of readdirSync(eventsDir)) {
    if (!/-task_(started|finished)-/.test(name)) continue;
    const event = JSON.parse(readFileSync(join(eventsDir, name), 'utf8')) as { event: string; stage: string; status: string };
    if (event.stage !== 'team-exec') continue;
    const at = stampMs(name);
    if (event.event === 'task_started') first = Math.min(first, at);
    else {
      last = Math.max(last, at);
      if (event.status === 'completed') completed++;
    }
  }
  if (completed !== tasks) throw new Error(`the pipeline completed ${completed} exec tasks, not ${tasks}`);
  return last - first;
}

// `20261028T131016577943Z-...` as milliseconds since the epoch, keeping the microseconds.
function stampMs(name: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{6})Z/.exec(name);
  if (!m) throw new Error(`not an event file name: ${name}`);
  const [, y, mo, d, h, mi, s, micros] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) + micros! / 1000;
}

// The folder holding package.json and the agent script, from bench/ or dist/bench/ alike.
export function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, AGENT))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package root (${AGENT})`);
    dir = parent;
  }
  return dir;
}
