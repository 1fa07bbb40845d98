// The path guard follows the agent into its worktree: an artifact that is a link out of the folder
// the agent worked in (or through one, or a broken one) fails the attempt, as it does without
// isolation, and nothing of it reaches `team/<run>`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject } from '../helpers/git-project.js';

const outside = mkdtempSync(join(tmpdir(), 'teamline-outside-'));
mkdirSync(join(outside, 'dir'));
writeFileSync(join(outside, 'secret.txt'), 'not the project\n');
afterAll(() => {
  removeProjects();
  rmSync(outside, { recursive: true, force: true });
});

// A two-worker run in a git repository whose task t1 makes `links` and lists them as artifacts.
async function runWithLinks(links: Array<{ path: string; target: string }>, artifacts: string[] = []) {
  const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] }, rules: [{ match: { task: 't1' }, do: { links, artifacts } }] });
  const result = await project.run('2:executor', 'hand back a link', '--agent', 'sim', '--max-fix-loops', '0');
  const run = project.readRun();
  const t1 = eventsOf(run.events, 'task_finished').filter((e) => e.task_id === 't1');
  const tree = project.git('ls-tree', '-r', '--name-only', `team/${run.runId}`);
  return { result, t1, tree };
}

describe('the path guard in worktrees', () => {
  it('fails an attempt whose artifact is a link out of its worktree, and merges nothing of it', async () => {
    const { result, t1, tree } = await runWithLinks([{ path: 'flink', target: join(outside, 'secret.txt') }]);
    expect(result.exitCode).toBe(1);
    expect(t1.map((e) => e.status)).toEqual(['failed', 'failed']);
    expect(t1[0]!.evidence).toContain('result artifacts: "flink" leads outside the project through a symbolic link');
    expect(tree.split('\n')).not.toContain('flink');
    expect(tree.split('\n')).toContain('sim-output/t2.txt');
  });

  it('fails one whose artifact goes through a linked folder', async () => {
    const { t1, tree } = await runWithLinks([{ path: 'ldir', target: join(outside, 'dir') }], ['ldir/new.txt']);
    expect(t1.map((e) => e.status)).toEqual(['failed', 'failed']);
    expect(t1[0]!.evidence).toContain('result artifacts: "ldir/new.txt" leads outside the project through a symbolic link');
    expect(tree.split('\n')).not.toContain('ldir');
  });

  it('fails one whose artifact is a broken link', async () => {
    const { t1 } = await runWithLinks([{ path: 'gone', target: join(outside, 'no-such-file') }]);
    expect(t1.map((e) => e.status)).toEqual(['failed', 'failed']);
    expect(t1[0]!.evidence).toContain('result artifacts: "gone" goes through a broken symbolic link');
  });
});
