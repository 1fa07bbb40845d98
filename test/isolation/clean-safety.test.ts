// `team clean` deletes a run's branch only when a branch of the user's holds it, and finds the
// worktrees of runs whose folder is gone, keeping any that hold commits on no branch.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject, showFile, worktreesFolder } from '../helpers/git-project.js';

afterAll(removeProjects);

const TWO = { plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] } };

describe('team clean: what it keeps', () => {
  it('keeps team/<run> merged only into a detached HEAD, so that it is still there once the user checks out their branch', async () => {
    const project = makeGitProject(TWO);
    const result = await project.run('2:executor', 'merge on a detached HEAD', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const integration = `team/${project.readRun().runId}`;
    project.git('checkout', '--quiet', '--detach', 'main');
    project.git('merge', '--quiet', '--no-edit', integration);
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toMatch(new RegExp(`kept ${integration} \\(\\d+ commit\\(s\\) not in any branch of yours\\)`));
    project.git('checkout', '--quiet', 'main');
    expect(project.git('branch', '--list', 'team/*', '--format=%(refname:short)')).toBe(integration);
    expect(showFile(project, integration, 'sim-output/t2.txt')).toContain('task t2 attempt 1');
    project.git('merge', '--quiet', '--no-edit', integration);
    const after = await project.run('clean');
    expect(after.exitCode, after.stderr).toBe(0);
    expect(project.git('branch', '--list', 'team/*')).toBe('');
  });

  it('cleans the worktrees of a run whose folder is gone, keeping one with a commit on no branch and saying so', async () => {
    const project = makeGitProject(TWO);
    const result = await project.run('2:executor', 'lose the run folder', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = project.readRun().runId;
    const integration = `team/${runId}`;
    const root = worktreesFolder(project.readRun());
    const loose = join(root, 'worker-1');
    execIn(project, loose, 'checkout', '--quiet', '--detach');
    writeFileSync(join(loose, 'loose.txt'), 'on no branch\n');
    execIn(project, loose, 'add', 'loose.txt');
    execIn(project, loose, 'commit', '--quiet', '-m', 'a commit on no branch');
    rmSync(join(project.dir, '.team', 'runs'), { recursive: true, force: true });
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toContain(`run ${runId} (its run folder is gone): removed 2 worktree(s), deleted 2 branch(es); kept worktree ${loose} (HEAD detached with 1 commit(s) on no branch), ${integration} (`);
    expect(existsSync(join(root, 'integration'))).toBe(false);
    expect(existsSync(join(root, 'worker-2'))).toBe(false);
    expect(existsSync(join(loose, 'loose.txt'))).toBe(true);
    expect(project.git('branch', '--list', 'team/*', '--format=%(refname:short)')).toBe(integration);
    project.git('merge', '--quiet', '--no-edit', integration);
    const after = await project.run('clean');
    expect(after.stderr).toContain(`run ${runId} (its run folder is gone): removed 0 worktree(s), deleted 1 branch(es); kept worktree ${loose} (HEAD detached with 1 commit(s) on no branch)`);
    expect(project.git('branch', '--list', 'team/*')).toBe('');
  });
});

// `git <args>` in one of the project's worktrees.
function execIn(project: ReturnType<typeof makeGitProject>, dir: string, ...args: string[]): string {
  return project.git('-C', dir, ...args);
}
