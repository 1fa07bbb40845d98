// Cancel latency: from the `team cancel` request to the last process of the run gone, with 20
// workers of which half ignore SIGINT and SIGTERM, beside the configured grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const WORKERS = 20;
// The configured grace period (team.shutdownTimeoutMs): the baseline the latency is set beside.
const GRACE_MS = 2_000;
// Rounds whose median is reported; BENCH_CANCEL_ROUNDS to change.
const ROUNDS = Number(process.env.BENCH_CANCEL_ROUNDS ?? 3);
// Every worker gone within the grace plus 2.5 s (SIGTERM, then SIGKILL for the stubborn half).
const TARGET = (GRACE_MS + 2_500) / GRACE_MS;
// The request delivered (cancel_requested written) within this of our own time after `team cancel`
// started: the row's baseline is `node -e 0` (spawned and ended, as `team cancel` is), measured in
// the same rounds, plus this budget. A request cannot arrive before a node process has started, and
// node's start varies with the machine and its load far more than our part of the path does.
const REQUEST_BUDGET_MS = 100;
// `node -e 0` runs per round, just before `team cancel` is started.
const NODE_RUNS = 5;
// `--force`: every worker gone within this.
const FORCE_BUDGET_MS = 1_000;
// How often /proc is scanned for the run's processes.
const POLL_MS = 10;
// Twenty sims starting on a busy machine take a while.
const START_TIMEOUT_MS = 180_000;

interface Handle {
  pid: number;
  pidStart: number;
  pgid: number;
}

interface Round {
  /** `team cancel` started → no process of any worker group left. */
  goneMs: number;
  /** `team cancel` started → its cancel_requested record (the CLI's own start-up). */
  requestMs: number;
  /** `node -e 0` started → ended, in the same round (the median of its runs). */
  nodeMs: number;
  /** cancel_requested → run_cancelled, by the records' times. */
  recordedMs: number;
  /** cancel_requested → the last well-behaved worker recorded interrupted (it is gone long before). */
  politeMs: number;
}

// Runs the rounds in temporary projects (BENCH_DIR to pick the disk) and reports their median.
export async function benchCancel(): Promise<Comparison[]> {
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i += 1) rounds.push(await measureRound(false));
  const forced = await measureRound(true);
  const detail = `${WORKERS} workers, ${WORKERS / 2} ignore signals`;
  const note = (pick: (r: Round) => number) => rounds.map((r) => Math.round(pick(r))).join('/');
  process.stdout.write(`  rounds (ms): all gone ${note((r) => r.goneMs)} after \`team cancel\` started, which took ${note((r) => r.requestMs)} to deliver the request;\n`);
  process.stdout.write(`  from the request: last well-behaved worker recorded ${note((r) => r.politeMs)}, run_cancelled ${note((r) => r.recordedMs)}; \`node -e 0\` took ${note((r) => r.nodeMs)}\n`);
  const nodeMs = median(rounds.map((r) => r.nodeMs));
  return [
    { name: 'cancel', detail, ms: median(rounds.map((r) => r.goneMs)), baselineMs: GRACE_MS, target: TARGET },
    { name: 'cancel (run)', detail: 'cancel_requested → run_cancelled', ms: median(rounds.map((r) => r.recordedMs)), baselineMs: GRACE_MS, target: TARGET },
    { name: 'cancel request', detail: `→ cancel_requested; node -e 0 + ${REQUEST_BUDGET_MS} ms`, ms: median(rounds.map((r) => r.requestMs)), baselineMs: nodeMs + REQUEST_BUDGET_MS, target: 1 },
    { name: 'cancel --force', detail: `${detail}, all gone`, ms: forced.goneMs, baselineMs: FORCE_BUDGET_MS, target: 1 },
  ];
}

// One run of 20 hanging workers, cancelled from another process once all are up.
async function measureRound(force: boolean): Promise<Round> {
  const dir = makeScratchDir('teamline-bench-cancel-');
  let run: ChildProcess | undefined;
  try {
    writeProject(dir);
    run = spawn(process.execPath, [CLI, `${WORKERS}:executor`, 'benchmark: cancel twenty workers', '--cwd', dir], { stdio: 'ignore' });
    const runExit = new Promise<number | null>((done) => run!.once('exit', (code) => done(code)));
    const runDir = await waitForWorkers(dir);
    const handles = readHandles(dir);
    const nodeMs = median(await timeNodeStarts());
    const startedAt = Date.now();
    const started = performance.now();
    const cancel = spawn(process.execPath, [CLI, 'cancel', '--cwd', dir, ...(force ? ['--force'] : [])], { stdio: 'ignore' });
    const cancelExit = new Promise<number | null>((done) => cancel.once('exit', (code) => done(code)));
    const wanted = new Set(handles.map((h) => h.pgid));
    while (liveInGroups(wanted) > 0) await sleep(POLL_MS);
    const goneMs = performance.now() - started;
    const [cancelCode, runCode] = await Promise.all([cancelExit, runExit]);
    if (cancelCode !== 0 || runCode !== 3) throw new Error(`team cancel exited ${cancelCode}, the run ${runCode} (expected 0 and 3)`);
    const events = readEvents(runDir);
    const at = (name: string) => Date.parse(String(events.find((e) => e.event === name)?.at));
    const requestMs = at('cancel_requested') - startedAt;
    const politeEnds = events.filter((e) => e.event === 'task_finished' && String(e.task_id).startsWith('polite-')).map((e) => Date.parse(String(e.at)));
    return { goneMs, requestMs, nodeMs, recordedMs: at('run_cancelled') - at('cancel_requested'), politeMs: Math.max(...politeEnds) - at('cancel_requested') };
  } finally {
    if (run && run.exitCode === null && run.signalCode === null) run.kill('SIGKILL');
    for (const handle of readHandles(dir)) killIfOwned(handle);
  }
}

// `node -e 0` from its spawn to its exit, NODE_RUNS times: what any command's start costs at that moment.
async function timeNodeStarts(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < NODE_RUNS; i += 1) {
    const started = performance.now();
    const node = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((done) => node.once('exit', done));
    times.push(performance.now() - started);
  }
  return times;
}

// Twenty exec tasks that hang: the odd ones stop on SIGINT, the even ones ignore SIGINT and SIGTERM.
function writeProject(dir: string): void {
  const tasks = Array.from({ length: WORKERS }, (_, i) => ({ id: `${i % 2 ? 'polite' : 'stubborn'}-${i + 1}`, acceptance: ['stops when cancelled'] }));
  const scenario = {
    name: 'bench-cancel',
    plan: { tasks },
    stages: { 'team-exec': { hang: true } },
    rules: [{ match: { stage: 'team-exec', task: 'stubborn-*' }, do: { ignoreSignals: true } }],
  };
  mkdirSync(join(dir, '.team'), { recursive: true });
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify(scenario));
  const config = { agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } }, roles: { planner: 'sim', analyst: 'sim', executor: 'sim', debugger: 'sim', verifier: 'sim', architect: 'sim' }, team: { shutdownTimeoutMs: GRACE_MS } };
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify(config));
}

// Resolves with the run folder once every worker printed its start line (signal handlers in place).
async function waitForWorkers(dir: string): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const current = join(dir, '.team', 'runs', 'current');
    if (existsSync(current)) {
      const runDir = join(dir, '.team', 'runs', readFileSync(current, 'utf8').trim());
      const spawned = readEvents(runDir).filter((e) => e.event === 'attempt_spawned' && e.task_id !== 'plan');
      if (spawned.length === WORKERS && spawned.every((e) => startLineShown(join(runDir, 'attempts', String(e.task_id), 'a1')))) return runDir;
    }
    if (Date.now() > deadline) throw new Error(`the ${WORKERS} workers did not start within ${START_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

// The recorded worker handles of the project's run, if it got that far.
function readHandles(dir: string): Handle[] {
  const current = join(dir, '.team', 'runs', 'current');
  if (!existsSync(current)) return [];
  const runDir = join(dir, '.team', 'runs', readFileSync(current, 'utf8').trim());
  return readEvents(runDir).filter((e) => e.event === 'attempt_spawned').map((e) => e.handle as Handle);
}

function startLineShown(attemptDir: string): boolean {
  try {
    return readFileSync(join(attemptDir, 'output.log'), 'utf8').includes('started by');
  } catch {
    return false;
  }
}

function readEvents(runDir: string): Array<Record<string, unknown>> {
  const dir = join(runDir, 'events');
  if (!existsSync(dir)) return [];
  const events: Array<Record<string, unknown>> = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    try {
      events.push(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>);
    } catch {
      // Being renamed into place.
    }
  }
  return events;
}

// How many running processes belong to one of the groups: one pass over /proc.
function liveInGroups(pgids: Set<number>): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (rest[0] !== 'Z' && rest[0] !== 'X' && pgids.has(Number(rest[2]))) count += 1;
  }
  return count;
}

// After a failed round: SIGKILL to a worker group that is still the run's (its leader is the recorded
// process, or gone while members remain); a recycled pid is someone else's.
function killIfOwned(handle: Handle): void {
  const start = readStartTime(handle.pid);
  if ((start !== undefined && start !== handle.pidStart) || liveInGroups(new Set([handle.pgid])) === 0) return;
  try {
    process.kill(-handle.pgid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function readStartTime(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}
