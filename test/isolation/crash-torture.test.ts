// kill -9 torture through merges: a run of six tasks on three workers whose orchestrator's whole
// process group is killed again and again while git holds its index lock (in the integration
// worktree during a merge, in a worker's worktree during teamline's commit), resumed each time:
// it completes with every task merged into team/<run> exactly once and no lock left behind.
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, runAsGroup, showFile, type GitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

const TASKS = 6;
// The commits (counted over the whole torture, merges and worker commits alike) at which the group is killed.
const KILL_AT = [1, 3, 4, 6, 8, 11];

// A prepare-commit-msg hook that counts teamline's commits on the run's branches and, at the
// counts of KILL_AT, creates the worktree's index.lock as git holds it, then kills the
// orchestrator's process group (it leads its own) with SIGKILL, git and the hook with it.
function installTortureHook(project: GitProject): string {
  const counter = join(project.dir, '.team', 'commits');
  const script = [
    '#!/bin/sh',
    'case "$(git rev-parse --abbrev-ref HEAD)" in team/*) ;; *) exit 0;; esac',
    `n=$(( $(cat '${counter}' 2>/dev/null || echo 0) + 1 ))`,
    `echo "$n" > '${counter}'`,
    `case " ${KILL_AT.join(' ')} " in *" $n "*) ;; *) exit 0;; esac`,
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
  return counter;
}

describe('worktree isolation: kill -9 torture through merges', () => {
  it('completes after every kill with each task merged once and no git lock left', async () => {
    const project = makeGitProject({ plan: { count: TASKS }, stages: { 'team-exec': { sleepMs: 100 } } });
    installTortureHook(project);
    let result = await runAsGroup(project, '3:executor', 'six tasks through many crashes', '--agent', 'sim');
    let kills = 0;
    while (result.exitCode === -1 && kills < 20) {
      kills += 1;
      result = await runAsGroup(project, 'resume', '--retry-interrupted');
    }
    expect(result.exitCode, result.stderr).toBe(0);
    expect(kills).toBeGreaterThanOrEqual(4);
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    const merges = project.git('log', '--merges', '--format=%s', branch).split('\n');
    for (let t = 1; t <= TASKS; t += 1) {
      expect(merges.filter((s) => new RegExp(`: merge t${t} \\(attempt \\d+\\)$`).test(s)), `merges of t${t}`).toHaveLength(1);
      expect(showFile(project, branch, `sim-output/t${t}.txt`)).toContain(`task t${t}`);
    }
    expect(eventsOf(run.events, 'git_lock_stale').filter((e) => e.removed).length).toBeGreaterThanOrEqual(kills - 1);
    const worktreesGit = join(project.dir, '.git', 'worktrees');
    const left = readdirSync(worktreesGit).filter((name) => existsSync(join(worktreesGit, name, 'index.lock')));
    expect(left).toEqual([]);
  }, 240_000);
});
