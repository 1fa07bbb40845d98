// kill -9 of the orchestrator in the middle of a merge into team/<run>, then `team resume`: the
// merge is finished exactly once, whether git had made the merge commit or not.
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, worktreesFolder, type GitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

const SCENARIO = { plan: { tasks: [{ id: 't1', acceptance: ['done'] }] } };

// A git hook that, the first time it runs for a merge into the integration branch, kills the
// orchestrator (its git's parent) with SIGKILL, then lets git finish (exit 0) or stop (exit 1).
function installKillHook(project: GitProject, hook: 'post-merge' | 'prepare-commit-msg', exitCode: number): string {
  const mark = join(project.dir, '.team', `killed-in-${hook}`);
  const script = [
    '#!/bin/sh',
    'case "$(git rev-parse --abbrev-ref HEAD)" in team/*--*) exit 0;; team/*) ;; *) exit 0;; esac',
    `[ -f '${mark}' ] && exit 0`,
    `touch '${mark}'`,
    'kill -9 "$(awk \'{print $4}\' /proc/$PPID/stat)"',
    `exit ${exitCode}`,
    '',
  ].join('\n');
  const file = join(project.dir, '.git', 'hooks', hook);
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return mark;
}

async function crashAndResume(hook: 'post-merge' | 'prepare-commit-msg', exitCode: number, removeWorktree = false) {
  const project = makeGitProject(SCENARIO);
  const mark = installKillHook(project, hook, exitCode);
  const first = await project.run('2:executor', 'one task merged across a crash', '--agent', 'sim');
  const killed = existsSync(mark);
  if (removeWorktree) rmSync(join(worktreesFolder(project.readRun()), 'worker-1'), { recursive: true, force: true });
  const resumed = await project.run('resume');
  const run = project.readRun();
  const merges = project.git('log', '--merges', '--format=%s', `team/${run.runId}`).split('\n').filter((s) => s.includes('merge t1'));
  return { first, killed, resumed, run, merges, project };
}

describe('worktree isolation: kill -9 during a merge', () => {
  it('finds the merge already made after the crash and records it done once, re-creating the lost worktree', async () => {
    const { first, killed, resumed, run, merges } = await crashAndResume('post-merge', 0, true);
    expect(killed).toBe(true);
    expect(first.exitCode).toBe(-1);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(eventsOf(run.events, 'merge_started').map((e) => e.task_id)).toEqual(['t1']);
    expect(eventsOf(run.events, 'merge_done').map((e) => [e.task_id, e.how])).toEqual([['t1', 'finished after a restart']]);
    expect(merges).toHaveLength(1);
    expect(eventsOf(run.events, 'task_finished').filter((e) => e.task_id === 't1').map((e) => e.status)).toEqual(['completed']);
    expect(eventsOf(run.events, 'worktree_ready').filter((e) => e.task_id === 't1').map((e) => e.how)).toEqual(['created', 'recreated']);
  });

  it('abandons a merge cut short before its commit and makes it once on resume', async () => {
    const { first, killed, resumed, run, merges, project } = await crashAndResume('prepare-commit-msg', 1);
    expect(killed).toBe(true);
    expect(first.exitCode).toBe(-1);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(eventsOf(run.events, 'merge_started').map((e) => e.task_id)).toEqual(['t1', 't1']);
    expect(eventsOf(run.events, 'merge_done').map((e) => [e.task_id, e.how])).toEqual([['t1', 'merged']]);
    expect(merges).toHaveLength(1);
    expect(eventsOf(run.events, 'worktree_ready').filter((e) => e.task_id === 't1').map((e) => e.how)).toEqual(['created', 'adopted']);
    expect(project.git('show', `team/${run.runId}:sim-output/t1.txt`)).toContain('task t1 attempt 1');
  });
});
