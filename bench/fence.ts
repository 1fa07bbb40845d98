// The fence's cost per attempt: an agent started and ended inside the fence (its plan made, as an
// attempt's is, in a worktree of a git repository: a `git rev-parse`, the folders it names) beside
// the same agent started and ended without it, interleaved in the same rounds. The agent is
// `node -e 0`, the smallest start of a real CLI (they are node programs or larger).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { fencePlan } from '../src/isolation/fence.js';
import { fencedCommand, probeFence } from '../workers/fence.js';
import { getAdapter } from '../workers/adapters/index.js';

const ROUNDS = 30;
// The fence must add only milliseconds to an attempt's start.
const TARGET = 1.5;

export async function benchFence(): Promise<Comparison[]> {
  const probe = probeFence();
  if (!probe.ok) {
    process.stdout.write(`  no fence here (${probe.why}): nothing to measure\n`);
    return [];
  }
  const dir = makeScratchDir('teamline-bench-fence-');
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  const worktree = join(dir, 'worktree');
  git('worktree', 'add', '-q', '-b', 'team/bench--t1', worktree);
  const attemptDir = join(dir, 'attempt');
  mkdirSync(attemptDir);
  const adapter = getAdapter('claude')!;
  const plain = { file: process.execPath, args: ['-e', '0'] };
  const bare: number[] = [];
  const fenced: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    let start = performance.now();
    await execa(plain.file, plain.args, { cwd: worktree });
    bare.push(performance.now() - start);
    start = performance.now();
    const plan = await fencePlan({ workDir: worktree, attemptDir, adapter, env: { HOME: join(dir, 'home') } });
    const command = fencedCommand(plain, plan, probe);
    await execa(command.file, command.args, { cwd: worktree, env: command.env });
    fenced.push(performance.now() - start);
  }
  const ms = median(fenced);
  const baselineMs = median(bare);
  return [{ name: 'fence', ms, baselineMs, target: TARGET, detail: `an agent (node -e 0) started and ended in a worktree, fenced (its plan made) against unfenced; +${(ms - baselineMs).toFixed(1)} ms, median of ${ROUNDS}` }];
}
