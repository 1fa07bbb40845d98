// What worktree isolation refuses: a branch that commits teamline's own files, and worktrees asked
// for where there is no git; and a project that is no repository runs with "none" and says so.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject } from '../helpers/sim-project.js';
import { makeGitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

describe('worktree isolation: refusals', () => {
  it('catches an agent that commits .team/: the merge is refused and the branch kept', async () => {
    const project = makeGitProject({
      plan: { tasks: [{ id: 't1', acceptance: ['a'] }] },
      rules: [{ match: { task: 't1' }, do: { files: [{ path: '.team/leak.txt', content: 'runtime state\n' }, { path: 'work.txt' }], commit: { force: ['.team/leak.txt'] } } }],
    });
    const result = await project.run('2:executor', 'leak the run folder', '--agent', 'sim', '--max-fix-loops', '0');
    const run = project.readRun();
    const integration = `team/${run.runId}`;
    expect(result.exitCode).toBe(1);
    expect(eventsOf(run.events, 'merge_failed').map((e) => [e.task_id, e.reason, e.files])).toEqual([['t1', 'runtime-files', ['.team/leak.txt']]]);
    const finished = eventsOf(run.events, 'task_finished').filter((e) => e.task_id === 't1');
    expect(finished.map((e) => e.status)).toEqual(['failed']);
    expect(finished[0]!.evidence).toBe(`${integration}--t1 commits teamline's own files (.team/leak.txt): not merged into ${integration}; the branch is kept`);
    expect(project.git('ls-tree', '-r', '--name-only', integration)).not.toContain('leak.txt');
    expect(project.git('ls-tree', '-r', '--name-only', `${integration}--t1`)).toContain('.team/leak.txt');
    expect(result.stderr).toContain(`${integration}--t1 (1 commit(s) not in ${integration})`);
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain(`team land: run ${run.runId} is failed; only a completed run lands`);
    expect(project.git('log', '--format=%s', 'main')).toBe('base');
  });

  it('runs a project that is not a git repository with "none", and says so', async () => {
    const project = makeSimProject({ plan: { count: 2 } });
    const result = await project.team('2:executor', 'no git here', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`isolation: none — workers share the project folder (${project.dir} is not in a git repository)`);
    const started = eventsOf(project.readRun().events, 'run_started')[0]!;
    expect(started.isolation).toEqual({ mode: 'none', reason: `${project.dir} is not in a git repository` });
    expect(existsSync(join(project.dir, '.team', 'worktrees'))).toBe(false);
    expect(existsSync(join(project.dir, 'sim-output', 't1.txt'))).toBe(true);
  });

  it('refuses team.isolation "worktree" outside git with exit 2, writing nothing', async () => {
    const project = makeSimProject({ plan: { count: 1 } }, { team: { isolation: 'worktree' } });
    const result = await project.team('2:executor', 'no git here', '--agent', 'sim');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`team.isolation: "worktree" needs a git repository with a commit, and ${project.dir} is not in a git repository`);
    expect(existsSync(join(project.dir, '.team', 'runs'))).toBe(false);
  });
});
