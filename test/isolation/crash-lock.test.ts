// kill -9 of the orchestrator's whole process group while git holds its lock in one of teamline's
// worktrees, then `team resume`: the lock no process holds is removed, the unfinished merge or
// commit is done again, and every task is merged exactly once. A stale lock in the user's own
// checkout is reported and left where it is.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, runAsGroup, type GitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

const SCENARIO = { plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] } };

// A prepare-commit-msg hook that, the first time a commit is made on a branch matching `pattern`,
// creates the worktree's index.lock as git does while it writes the index, then kills the
// orchestrator's whole process group (the orchestrator leads it) with SIGKILL, git and the hook with it.
function installKillHook(project: GitProject, pattern: string): string {
  const mark = join(project.dir, '.team', 'killed');
  const script = [
    '#!/bin/sh',
    `case "$(git rev-parse --abbrev-ref HEAD)" in ${pattern}) ;; *) exit 0;; esac`,
    `[ -f '${mark}' ] && exit 0`,
    `touch '${mark}'`,
    ': > "$(git rev-parse --git-dir)/index.lock"',
    'orchestrator=$(awk \'{print $4}\' /proc/$PPID/stat)',
    'group=$(awk \'{print $5}\' /proc/$orchestrator/stat)',
    '[ "$group" = "$orchestrator" ] || exit 1',
    'kill -9 -"$group"',
    '',
  ].join('\n');
  const file = join(project.dir, '.git', 'hooks', 'prepare-commit-msg');
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return mark;
}

async function crashAndResume(pattern: string, beforeResume: (project: GitProject) => void = () => {}) {
  const project = makeGitProject(SCENARIO);
  const mark = installKillHook(project, pattern);
  const first = await runAsGroup(project, '2:executor', 'two tasks merged across a crash', '--agent', 'sim');
  expect(existsSync(mark)).toBe(true);
  expect(first.exitCode).toBe(-1);
  beforeResume(project);
  const resumed = await project.run('resume');
  const run = project.readRun();
  const merges = project.git('log', '--merges', '--format=%s', `team/${run.runId}`).split('\n');
  return { project, resumed, run, merges };
}

describe('worktree isolation: kill -9 of the process group while git holds its lock', () => {
  it('removes the integration worktree\'s stale index.lock on resume and merges each task once', async () => {
    const { resumed, run, merges } = await crashAndResume('team/*--*) exit 0;; team/*');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const lock = join(run.paths.projectDir, '.git', 'worktrees', 'integration', 'index.lock');
    expect(eventsOf(run.events, 'git_lock_stale').map((e) => [e.path, e.removed])).toEqual([[lock, true]]);
    expect(resumed.stderr).toContain(`removed ${lock}: a git lock in teamline's own worktree that no git process holds (left by a crash)`);
    expect(merges.filter((s) => s.includes('merge t1'))).toHaveLength(1);
    expect(merges.filter((s) => s.includes('merge t2'))).toHaveLength(1);
    expect(eventsOf(run.events, 'task_finished').filter((e) => e.status === 'completed').map((e) => e.task_id).sort()).toEqual(['plan', 't1', 't2', 'verify-1']);
  });

  it('removes a worker worktree\'s stale index.lock left in the middle of teamline\'s commit of its work', async () => {
    const { resumed, run, merges, project } = await crashAndResume('team/*--t1');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(eventsOf(run.events, 'git_lock_stale').map((e) => e.removed)).toEqual([true]);
    expect(merges.filter((s) => s.includes('merge t1'))).toHaveLength(1);
    expect(project.git('show', `team/${run.runId}:sim-output/t1.txt`)).toContain('task t1');
    expect(eventsOf(run.events, 'task_finished').filter((e) => e.status === 'failed')).toEqual([]);
  });

  it('reports a stale lock in the user\'s checkout and leaves it there', async () => {
    let userLock = '';
    const { resumed, run, project } = await crashAndResume('team/*--*) exit 0;; team/*', (project) => {
      userLock = join(project.dir, '.git', 'index.lock');
      writeFileSync(userLock, '');
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(existsSync(userLock)).toBe(true);
    expect(resumed.stderr).toContain(`needs attention: ${userLock} is a git lock in your checkout that no git process holds; teamline leaves it alone: remove it once no git runs there`);
    expect(eventsOf(run.events, 'git_lock_stale').filter((e) => e.path === userLock).map((e) => e.removed)).toEqual([false]);
    const status = await project.run('status');
    expect(status.stdout).toContain(`needs attention:\n  ${userLock} is a git lock in your checkout that no git process held when the run resumed; teamline left it alone`);
  });
});
