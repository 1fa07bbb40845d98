// Every commit an agent makes in its worktree is kept: commits made on a detached HEAD or on a
// branch of its own are brought onto the task's branch and merged, and `team clean` keeps a
// worktree whose HEAD log holds commits on no branch.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, showFile } from '../helpers/git-project.js';

afterAll(removeProjects);

// One task whose agent runs `shell` in its worktree after writing its files.
function oneTask(shell: string) {
  return { plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell } }] };
}

describe('worktree isolation: commits an agent made off its task branch', () => {
  it('merges the commits of an agent that detached HEAD and committed there, and puts the worktree back on its branch', async () => {
    const project = makeGitProject(oneTask('git switch -q --detach && git add -A && git commit -qm "on a detached HEAD"'));
    const result = await project.run('2:executor', 'commit on a detached head', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    expect(showFile(project, branch, 'sim-output/t1.txt')).toContain('task t1 attempt 1');
    expect(project.git('log', '--format=%s', branch)).toContain('on a detached HEAD');
    expect(eventsOf(run.events, 'merge_done').map((e) => e.how)).toEqual(['merged']);
    const collected = eventsOf(run.events, 'task_committed').find((e) => e.why.startsWith('collected'));
    expect(collected).toMatchObject({ task_id: 't1', branch: `${branch}--t1`, files: ['sim-output/t1.txt'], why: 'collected 1 commit(s) the agent made on a detached HEAD' });
    const worktree = eventsOf(run.events, 'worktree_ready').find((e) => e.task_id === 't1')!.path;
    expect(project.git('-C', worktree, 'symbolic-ref', '--short', 'HEAD')).toBe(`${branch}--t1`);
  });

  it('finds commits an agent made on a branch of its own and then deleted, from the worktree\'s HEAD log', async () => {
    const shell = [
      'git switch -q -c mine',
      'git add -A && git commit -qm "on a branch of its own"',
      'echo more > more.txt && git add more.txt && git commit -qm "more on it"',
      'git switch -q "team/$TEAM_RUN_ID--t1"',
      'git branch -q -D mine',
    ].join(' && ');
    // Unfenced: the fence lets an agent make branches only under team/ (the rest of refs/heads is the user's).
    const project = makeGitProject(oneTask(shell), { team: { fence: 'off' } });
    const result = await project.run('2:executor', 'commit on a branch and delete it', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    expect(showFile(project, branch, 'more.txt')).toBe('more');
    expect(showFile(project, branch, 'sim-output/t1.txt')).toContain('task t1 attempt 1');
    expect(eventsOf(run.events, 'task_committed').map((e) => e.why)).toContain('collected 2 commit(s) the agent made on a branch or a detached HEAD it then left (found in the worktree\'s HEAD log)');
  });

  it('fails the attempt naming the branch that keeps commits made off its branch that do not merge into it', async () => {
    const shell = [
      'git switch -q --detach',
      'echo detached > f.txt && git add f.txt && git commit -qm "f on a detached HEAD"',
      'git switch -q "team/$TEAM_RUN_ID--t1"',
      'echo on-branch > f.txt && git add f.txt && git commit -qm "f on the branch"',
    ].join(' && ');
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1', attempt: 1 }, do: { shell } }] });
    await project.run('2:executor', 'commits that do not merge', '--agent', 'sim');
    const run = project.readRun();
    const kept = project.git('for-each-ref', '--format=%(refname:short)', `refs/heads/team/${run.runId}-kept/`);
    expect(kept).toMatch(new RegExp(`^team/${run.runId}-kept/t1-a1-[0-9a-f]{10}$`));
    expect(project.git('log', '-1', '--format=%s', kept)).toBe('f on a detached HEAD');
    const failed = eventsOf(run.events, 'task_finished').find((e) => e.task_id === 't1' && e.attempt === 1)!;
    expect(failed.status).toBe('failed');
    expect(failed.evidence).toContain(`the agent committed ${project.git('rev-parse', '--short=10', kept)} on a branch or a detached HEAD it then left (found in the worktree's HEAD log) and it does not merge into team/${run.runId}--t1 (`);
    expect(failed.evidence).toContain(`it is kept on branch ${kept}, nothing was merged`);
  });

  it('keeps in `team clean` a worktree whose HEAD log holds a commit on no branch', async () => {
    const project = makeGitProject({ plan: { count: 1 } });
    const result = await project.run('2:executor', 'leave a commit in the reflog', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const worktree = eventsOf(run.events, 'worktree_ready').find((e) => e.task_id === 't1')!.path;
    const inWorktree = (...args: string[]) => project.git('-C', worktree, ...args);
    inWorktree('switch', '-q', '--detach');
    writeFileSync(join(worktree, 'lost.txt'), 'only in the reflog\n');
    inWorktree('add', 'lost.txt');
    inWorktree('commit', '-qm', 'a commit only the HEAD log holds');
    inWorktree('switch', '-q', `team/${run.runId}--t1`);
    project.git('merge', '-q', '--no-edit', `team/${run.runId}`);
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toContain(`kept worktree ${worktree} (its HEAD log holds 1 commit(s) on no branch)`);
    expect(inWorktree('log', '-g', '-1', '--skip=1', '--format=%s', 'HEAD')).toBe('a commit only the HEAD log holds');
  });
});
