// `team cancel` with worktrees: every branch holding work not merged is kept and listed, and
// `team clean` afterwards deletes only the branches whose commits are all merged.
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, type RunRead } from '../helpers/sim-project.js';
import { GIT_ENV, makeGitProject, worktreesFolder, type GitProject } from '../helpers/git-project.js';
import { CLI, type TeamResult } from '../helpers/team.js';
import { waitForEvent } from '../helpers/wait-event.js';

afterAll(removeProjects);

const SCENARIO = {
  plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] },
  rules: [
    { match: { task: 't2', attempt: 1 }, do: { fail: 't2 gave up halfway' } },
    { match: { task: 't2', attempt: 2 }, do: { hang: true } },
  ],
};

describe('worktree isolation: cancel', () => {
  let project: GitProject;
  let result: TeamResult;
  let run: RunRead;
  let integration: string;

  beforeAll(async () => {
    project = makeGitProject(SCENARIO);
    const orchestrator = execa('node', [CLI, '2:executor', 'one finishes, one hangs', '--agent', 'sim'], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile }, reject: false, stdin: 'ignore' });
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't2' && e.attempt === 2);
    const cancel = await project.run('cancel');
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    const ended = await orchestrator;
    result = { exitCode: ended.exitCode ?? -1, stdout: String(ended.stdout), stderr: String(ended.stderr) };
    run = project.readRun();
    integration = `team/${run.runId}`;
  }, 120_000);

  it('ends cancelled and lists the branch with unmerged work', () => {
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stderr).toContain(`branches kept with work not merged into ${integration}:\n   ${integration}--t2 (1 commit(s) not in ${integration})`);
  });

  it('keeps the failed attempt\'s work committed on its task branch', () => {
    const kept = eventsOf(run.events, 'branches_kept').at(-1)!.branches.map((b) => b.branch);
    expect(kept).toEqual([integration, `${integration}--t2`]);
    expect(project.git('show', `${integration}--t2:sim-output/t2.txt`)).toContain('task t2 attempt 1');
    expect(project.git('log', '--format=%s', `${integration}--t2`)).toContain('t2 attempt 1 (failed)');
  });

  it('cleans only what is merged: worktrees and t1 go, t2 and team/<run> stay', async () => {
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    const branches = project.git('branch', '--list', 'team/*', '--format=%(refname:short)').split('\n');
    expect(branches.sort()).toEqual([integration, `${integration}--t2`]);
    expect(clean.stderr).toContain(`${integration}--t2 (1 commit(s) not in ${integration})`);
    // How to delete a branch kept for its work, and that it deletes that work.
    expect(clean.stderr).toContain(`to delete the kept branches, and the commits only they hold: git branch -D ${integration}--t2 (look first: git log -p ${integration}--t2)`);
    expect(existsSync(worktreesFolder(run))).toBe(false);
  });
});
