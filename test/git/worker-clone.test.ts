// A team worker's attempts at once share its clone: their fetches, worktrees, commits and pushes
// there must not trip over git's lock files (config, refs), which make an overlapping git command
// fail rather than wait.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openAttemptTree } from '../../src/team-worker/git.js';
import { Serial } from '../../src/git/serial.js';
import type { AttemptJob } from '../../src/store/pg/attempt-job.js';
import { GIT_ENV } from '../helpers/git-project.js';

// The agents' commits are the worker's, with the test identity.
Object.assign(process.env, GIT_ENV);
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

// A bare origin with one commit on main, and a worker's clone of it.
function makeClone(): { root: string; origin: string; clone: string } {
  const root = mkdtempSync(join(tmpdir(), 'teamline-worker-clone-'));
  made.push(root);
  const origin = join(root, 'origin.git');
  git(root, 'init', '--quiet', '--bare', '--initial-branch', 'main', origin);
  const seed = join(root, 'seed');
  git(root, 'init', '--quiet', '--initial-branch', 'main', seed);
  writeFileSync(join(seed, 'README.md'), '# base\n');
  git(seed, 'add', '--all');
  git(seed, 'commit', '--quiet', '-m', 'base');
  git(seed, 'push', '--quiet', origin, 'main');
  const clone = join(root, 'machine');
  git(root, 'clone', '--quiet', origin, clone);
  return { root, origin, clone };
}

const job = (taskId: string): AttemptJob => ({ runId: 'r1', taskId, attempt: 1, git: { remote: 'origin', base: 'main', branch: `team/r1--${taskId}`, prefix: '' } }) as unknown as AttemptJob;

describe('a team worker\'s clone', () => {
  it('takes eight attempts at once, three times over: every worktree is made, and every branch committed and pushed', async () => {
    const { root, origin, clone } = makeClone();
    const failures: string[] = [];
    const tasks: string[] = [];
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 8 }, async (_, i) => {
        const taskId = `t${round}-${i}`;
        tasks.push(taskId);
        try {
          const tree = await openAttemptTree(clone, join(root, 'folder'), job(taskId));
          writeFileSync(join(tree.workDir, `${taskId}.txt`), `${taskId}\n`);
          const outcome = await tree.finish('completed');
          if (!outcome.pushed) failures.push(`${taskId}: ${outcome.error}`);
        } catch (error) {
          failures.push(`${taskId}: ${(error as Error).message}`);
        }
      }));
    }
    expect(failures).toEqual([]);
    // Each task's branch on the remote holds its own file on the base, and nothing else.
    for (const taskId of tasks) {
      expect(git(origin, 'show', `team/r1--${taskId}:${taskId}.txt`)).toBe(taskId);
      expect(git(origin, 'ls-tree', '--name-only', `team/r1--${taskId}`).split('\n').sort()).toEqual(['README.md', `${taskId}.txt`]);
    }
    // No worktree is left, and no upstream was written into the clone's config.
    expect(git(clone, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
    expect(git(clone, 'config', '--list', '--local').split('\n').filter((line) => line.startsWith('branch.team/'))).toEqual([]);
  }, 60_000);
});

describe('Serial', () => {
  it('runs each work after the earlier ones settled, a failure included, and hands each caller its own result', async () => {
    const serial = new Serial();
    const order: string[] = [];
    const step = (name: string, ms: number, fail = false) => serial.run(async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} end`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
    const results = await Promise.allSettled([step('a', 30), step('b', 5, true), step('c', 1)]);
    expect(order).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b failed', 'c']);
  });
});
