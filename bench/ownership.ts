// File ownership and the plan's width (issue 38): 8 tasks on 4 workers, in 4 pairs that each rewrite
// one shared file (the sim agent, a real git repository). The plan run twice in the same bench: its
// tasks with their `files` (the scheduler keeps a pair apart), and the same tasks without them (the
// tasks of a pair may run at once, and the second merge conflicts). Rows: the merge conflicts and the
// fix loops with the claims against those without; the exec stage's makespan with the claims against
// the bound the plan sets (its critical path, and its total work over its workers: both 2 attempts).
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { readRunFiles } from '../src/log/read.js';
import { resolveRun } from '../src/log/write.js';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const WORKERS = 4;
const PAIRS = ['a', 'b', 'c', 'd'];
// How long an exec attempt works: long beside a merge and an agent's start, as a real one is.
const WORK_MS = 2_500;
// The makespan within 10% of the plan's bound.
const MAKESPAN_TARGET = 1.1;

interface Outcome {
  conflicts: number;
  fixLoops: number;
  /** The exec stage's first attempt start to its last end. */
  makespanMs: number;
  /** The median exec attempt, start to end. */
  attemptMs: number;
}

export async function benchOwnership(): Promise<Comparison[]> {
  const owned = await runPlan(true);
  const free = await runPlan(false);
  // 8 tasks over 4 workers is 2 attempts each, and each pair's 2 attempts run in turn: a bound of 2.
  const boundMs = 2 * owned.attemptMs;
  return [
    {
      name: 'ownership',
      detail: `8 tasks, 4 pairs on one file each, ${WORKERS} workers: merge conflicts with the plan's files (fix loops ${owned.fixLoops}) vs without (fix loops ${free.fixLoops})`,
      ms: owned.conflicts,
      baselineMs: free.conflicts,
      target: 0,
      unit: 'conflicts',
    },
    {
      name: 'owned makespan',
      detail: `the exec stage with the files vs the plan's bound (critical path 2 attempts = 8 attempts / ${WORKERS} workers; an attempt ${Math.round(owned.attemptMs)} ms)`,
      ms: owned.makespanMs,
      baselineMs: boundMs,
      target: MAKESPAN_TARGET,
    },
  ];
}

async function runPlan(withFiles: boolean): Promise<Outcome> {
  const dir = makeScratchDir(`teamline-bench-ownership-${withFiles ? 'owned' : 'free'}-`);
  const tasks = PAIRS.flatMap((file, i) =>
    [1, 2].map((n) => ({ id: `t${2 * i + n}`, title: `rewrite ${file}.ts (${n})`, acceptance: ['the file says who wrote it'], ...(withFiles && { files: [`src/${file}.ts`] }) })),
  );
  const rules = tasks.map((task) => ({
    match: { stage: 'team-exec', task: task.id },
    do: { sleepMs: WORK_MS, files: [{ path: `src/${PAIRS[Math.floor((Number(task.id.slice(1)) - 1) / 2)]}.ts`, content: `export const by = '${task.id}';\n` }] },
  }));
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.team'), { recursive: true });
  for (const file of PAIRS) writeFileSync(join(dir, 'src', `${file}.ts`), `export const by = 'base';\n`);
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ plan: { tasks }, rules }));
  writeFileSync(join(dir, '.team/config.json'), JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  // A conflict goes to the fix loop; one loop is enough to count it.
  const run = await execa(process.execPath, [CLI, `${WORKERS}:executor`, 'rewrite the four files', '--agent', 'sim', '--max-fix-loops', '1'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  if (run.exitCode !== 0 && run.exitCode !== 1) throw new Error(`the ownership run exited ${run.exitCode}: ${run.stderr}`);
  const { events } = readRunFiles(resolveRun(dir, undefined));
  const started = new Map<string, number>();
  const spans: number[] = [];
  let first = Infinity;
  let last = 0;
  for (const e of events) {
    if (e.event === 'task_started' && e.stage === 'team-exec') started.set(`${e.task_id}#${e.attempt}`, Date.parse(e.at));
    if (e.event === 'task_finished' && e.stage === 'team-exec') {
      const start = started.get(`${e.task_id}#${e.attempt}`);
      if (start === undefined) continue;
      spans.push(Date.parse(e.at) - start);
      first = Math.min(first, start);
      last = Math.max(last, Date.parse(e.at));
    }
  }
  return {
    conflicts: events.filter((e) => e.event === 'merge_failed' && e.reason === 'conflict').length,
    fixLoops: events.filter((e) => e.event === 'fix_loop_started').length,
    makespanMs: last - first,
    attemptMs: median(spans),
  };
}
