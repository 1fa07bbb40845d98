// The best of N (issue 38): what waiting for two candidates and a selector costs in time. 4 independent
// tasks (the sim agent, a real git repository), each attempt working WORK_MS: run once each on 4
// workers, and as the best of 2 on 8 workers (each task's 2 candidates at once, their gates in their
// own worktrees, then its selector and the merge of the pick), both in the same bench. The row: the
// exec stage's time with the best of 2 against the same stage run once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { readRunFiles } from '../src/log/read.js';
import { resolveRun } from '../src/log/write.js';
import type { Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const TASKS = 4;
// How long an exec attempt works: long beside a merge, a gate and an agent's start, as a real one is.
const WORK_MS = 2_500;
// Candidates run at once, so the best of 2 costs one attempt, its gate and the selector's short turn more than a single run: within 1.5x.
const TARGET = 1.5;

export async function benchBestOf(): Promise<Comparison[]> {
  const once = await runPlan(1);
  const best = await runPlan(2);
  return [
    {
      name: 'best of 2',
      detail: `${TASKS} tasks of ${WORK_MS} ms each: the exec stage as the best of 2 on ${2 * TASKS} workers (candidates, their gates, the selector, the merge of the pick) vs each task once on ${TASKS}`,
      ms: best,
      baselineMs: once,
      target: TARGET,
    },
  ];
}

// The exec stage's time (its stage_entered to its stage_completed) of a run of the plan.
async function runPlan(bestOf: number): Promise<number> {
  const dir = makeScratchDir(`teamline-bench-best-of-${bestOf}-`);
  const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i + 1}`, title: `write src/t${i + 1}.ts`, acceptance: ['the file exists'], files: [`src/t${i + 1}.ts`] }));
  const rules = tasks.map((task) => ({ match: { stage: 'team-exec', task: task.id }, do: { sleepMs: WORK_MS, files: [{ path: `src/${task.id}.ts`, content: `export const by = '${task.id}';\n` }] } }));
  // A candidate's id is its task's with --c<k>: the same work.
  const candidateRules = tasks.flatMap((task) => [1, 2].map((k) => ({ match: { stage: 'team-exec', task: `${task.id}--c${k}` }, do: { sleepMs: WORK_MS, files: [{ path: `src/${task.id}.ts`, content: `export const by = '${task.id} c${k}';\n` }] } })));
  mkdirSync(join(dir, '.team'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ plan: { tasks }, rules: [...rules, ...candidateRules] }));
  writeFileSync(join(dir, '.team/config.json'), JSON.stringify({ team: { bestOf }, agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } }, verify: { commands: ['true'] } }));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  const run = await execa(process.execPath, [CLI, `${bestOf * TASKS}:executor`, 'write the files', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  if (run.exitCode !== 0) throw new Error(`the best-of ${bestOf} run exited ${run.exitCode}: ${run.stderr}`);
  const { events } = readRunFiles(resolveRun(dir, undefined));
  const at = (name: string) => Date.parse(events.find((e) => (e.event === name) && 'stage' in e && e.stage === 'team-exec')!.at);
  return at('stage_completed') - at('stage_entered');
}
