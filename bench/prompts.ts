// Prompts a provider can cache (issue 40): in a run of the sim agent (a git repository, 2 workers,
// the demo's scenario), the exec prompts of two workers share a prefix. The row: teamline's own text
// of one exec prompt (all of it but the task's own section: its id, title, description, acceptance,
// files and dependencies) against the prefix it shares with another worker's exec prompt. At most
// 1.25x is a shared prefix of at least 80% of teamline's text.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { resolveRun } from '../src/log/write.js';
import type { Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = resolve(HERE, '../src/cli.js');
const TARGET = 1.25;

export async function benchPrompts(): Promise<Comparison[]> {
  const dir = makeScratchDir('teamline-bench-prompts-');
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# prompts\n');
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  const run = await execa(process.execPath, [CLI, '2:executor', 'add input validation to the API and document it', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  if (run.exitCode !== 0) throw new Error(`the prompts run exited ${run.exitCode}: ${run.stderr}`);
  const attempts = resolveRun(dir, undefined).attemptsDir;
  const exec = readdirSync(attempts).filter((id) => /^t\d+$/.test(id)).sort();
  if (exec.length < 2) throw new Error(`the prompts run made ${exec.length} exec attempts, not 2 or more`);
  const [one, two] = exec.slice(0, 2).map((id) => readFileSync(join(attempts, id, 'a1', 'prompt.md'), 'utf8'));
  let shared = 0;
  while (shared < one!.length && one![shared] === two![shared]) shared += 1;
  const own = one!.length - one!.indexOf('## Your task:');
  const teamlines = one!.length - own;
  return [{ name: 'prompt prefix', detail: `two workers' exec prompts of one run (${exec[0]}, ${exec[1]}): teamline's text of one vs the prefix they share; the task's own section ${own} chars`, ms: teamlines, baselineMs: shared, target: TARGET, unit: 'chars' }, await handoffGrowth(env)];
}

// A later fix loop's prompt carries each stage's latest handoff whole and names the earlier ones: it
// stays within 1.25x of the first fix loop's, not a page longer a loop.
const GROWTH_TARGET = 1.25;

// The third fix loop's fix prompt against the first's, in a run whose verify fails three times.
async function handoffGrowth(env: NodeJS.ProcessEnv): Promise<Comparison> {
  const dir = makeScratchDir('teamline-bench-handoffs-');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  mkdirSync(join(dir, '.team'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# handoffs\n');
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ plan: { count: 2 }, verify: { failPasses: 3 } }));
  writeFileSync(join(dir, '.team/config.json'), JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }));
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  await execa(process.execPath, [CLI, '2:executor', 'add input validation to the API and document it', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  const attempts = resolveRun(dir, undefined).attemptsDir;
  const size = (id: string) => readFileSync(join(attempts, id, 'a1', 'prompt.md'), 'utf8').length;
  const fixes = readdirSync(attempts).filter((id) => /^fix-\d+-/.test(id)).sort();
  if (fixes.length < 3) throw new Error(`the handoffs run made ${fixes.length} fix tasks, not 3`);
  const [first, third] = [fixes[0]!, fixes[2]!];
  return { name: 'handoff growth', detail: `the fix prompt of fix loop 3 (${third}) vs fix loop 1 (${first}), a run whose verify fails 3 times`, ms: size(third), baselineMs: size(first), target: GROWTH_TARGET, unit: 'chars' };
}
