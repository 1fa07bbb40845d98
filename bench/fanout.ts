// Fan-out under a rate limit (issue 29): 20 exec attempts on 8 workers against a model server that
// admits 4 turns at once and answers 429 beyond. The makespan of the exec stage beside the ideal:
// 20 attempts / 4 lanes x one attempt's time (the median completed exec attempt of the same run).
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRunFiles } from '../src/log/read.js';
import { runPaths } from '../src/log/write.js';
import { median, type Comparison } from './parts/compare.js';
import { startRateServer } from './parts/rate-server.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = TEAM_BIN;
// The fixture agent (claude's stream-json, its turn asked of the server), from the checkout.
const AGENT = resolve(HERE, '../../test/fixtures/agents/rate-limited-claude.js');
const ATTEMPTS = 20;
const LANES = 4;
const WORKERS = 8;
// How long the server holds a turn: the model's share of an attempt.
const HOLD_MS = 3_000;
// A limit that settles within twice the ideal: lanes halve on a 429 and climb back one per success.
const TARGET = 2;

// One run, in a git repository: the exec stage's makespan against the ideal.
export async function benchFanout(): Promise<Comparison[]> {
  const server = await startRateServer({ capacity: LANES, holdMs: HOLD_MS, retryAfterS: 1 });
  try {
    const dir = makeScratchDir('teamline-bench-fanout-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    mkdirSync(join(dir, '.team'), { recursive: true });
    writeFileSync(join(dir, 'README.md'), '# fan-out\n');
    writeFileSync(join(dir, '.team/config.json'), JSON.stringify({ team: { monitorIntervalMs: 200, maxTaskAttempts: 1 }, agents: { rl: { adapter: 'claude', command: AGENT } } }));
    git('init', '--quiet', '--initial-branch', 'main');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'add', 'README.md');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '-m', 'base');
    const env = { ...process.env, RL_URL: server.url, RL_TASKS: String(ATTEMPTS), RL_COST: '0.01', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
    // Asynchronous: the server answers from this process.
    const run = await execa(process.execPath, [CLI, `${WORKERS}:executor`, 'fan out under a rate limit', '--agent', 'rl'], { cwd: dir, env, reject: false, stdin: 'ignore' });
    if (run.exitCode !== 0) throw new Error(`fan-out run exited ${run.exitCode}: ${run.stderr}`);
    const files = readRunFiles(runPaths(dir, readRunId(dir)));
    const exec = files.events.filter((e) => (e.event === 'task_started' || e.event === 'task_finished') && e.stage === 'team-exec') as Array<{ event: string; task_id: string; attempt: number; status: string; at: string }>;
    const startOf = new Map(exec.filter((e) => e.event === 'task_started').map((e) => [`${e.task_id}#${e.attempt}`, Date.parse(e.at)]));
    const ends = exec.filter((e) => e.event === 'task_finished');
    const attemptMs = median(ends.filter((e) => e.status === 'completed').map((e) => Date.parse(e.at) - startOf.get(`${e.task_id}#${e.attempt}`)!));
    const makespan = Math.max(...ends.map((e) => Date.parse(e.at))) - Math.min(...startOf.values());
    const throttled = files.events.filter((e) => e.event === 'attempt_throttled').length;
    return [{ name: 'fan-out', detail: `${ATTEMPTS} attempts, ${WORKERS} workers, ${LANES} admitted at once; ${throttled} 429s; an attempt ${Math.round(attemptMs)} ms`, ms: makespan, baselineMs: (ATTEMPTS / LANES) * attemptMs, target: TARGET }];
  } finally {
    await server.close();
  }
}

function readRunId(dir: string): string {
  return readFileSync(join(dir, '.team/runs/current'), 'utf8').trim();
}
