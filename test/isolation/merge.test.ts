// Three workers in their own worktrees edit different lines of one file: every branch merges
// cleanly into team/<run>, the user's branch is untouched until `team land`, and clean tidies up.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, type RunRead } from '../helpers/sim-project.js';
import { makeGitProject, showFile, worktreesFolder, type GitProject } from '../helpers/git-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

const FILE = 'shared.txt';
const BASE = ['one', 'two', 'three', 'four', 'five', ''].join('\n');

const SCENARIO = {
  plan: { tasks: [{ id: 't1', acceptance: ['line 1'] }, { id: 't2', acceptance: ['line 3'] }, { id: 't3', acceptance: ['line 5'] }] },
  rules: [
    { match: { task: 't1' }, do: { files: [], edits: [{ path: FILE, line: 1, text: 'ONE by t1' }] } },
    { match: { task: 't2' }, do: { files: [], edits: [{ path: FILE, line: 3, text: 'THREE by t2' }], commit: { message: 't2 commits on its own' } } },
    { match: { task: 't3' }, do: { files: [], edits: [{ path: FILE, line: 5, text: 'FIVE by t3' }] } },
  ],
};

describe('worktree isolation: a clean merge', () => {
  let project: GitProject;
  let result: TeamResult;
  let run: RunRead;
  let branch: string;

  beforeAll(async () => {
    project = makeGitProject(SCENARIO, { verify: { commands: [`grep -q "ONE by t1" ${FILE} && grep -q "THREE by t2" ${FILE} && grep -q "FIVE by t3" ${FILE}`] } }, { [FILE]: BASE });
    result = await project.run('3:executor', 'edit the shared file', '--agent', 'sim');
    run = project.readRun();
    branch = `team/${run.runId}`;
  });

  it('completes, with the gates run on the merged work of all three', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(eventsOf(run.events, 'gates_result')[0]!.gates[0]!.exitCode).toBe(0);
    expect(result.stderr).toContain(`isolation: worktree`);
  });

  it('runs each worker in its own worktree on its task branch', () => {
    const ready = eventsOf(run.events, 'worktree_ready').filter((e) => e.task_id !== 'integration');
    expect(ready.map((e) => [e.task_id, e.branch, e.path])).toEqual(
      ['t1', 't2', 't3'].map((t, i) => [t, `${branch}--${t}`, join(worktreesFolder(run), `worker-${i + 1}`)]),
    );
  });

  it('merges every task branch into team/<run> once, keeping the agent\'s own commit', () => {
    expect(eventsOf(run.events, 'merge_done').map((e) => `${e.task_id} ${e.how}`).sort()).toEqual(['t1 merged', 't2 merged', 't3 merged']);
    expect(showFile(project, branch, FILE)).toBe('ONE by t1\ntwo\nTHREE by t2\nfour\nFIVE by t3');
    expect(project.git('log', '--format=%s', branch)).toContain('t2 commits on its own');
    expect(eventsOf(run.events, 'task_committed').map((e) => e.task_id).sort()).toEqual(['t1', 't3']);
  });

  it('leaves the user\'s branch and working tree untouched during the run', () => {
    expect(project.git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(project.git('log', '--format=%s', 'main')).toBe('base');
    expect(project.git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(project.git('ls-tree', '-r', '--name-only', branch)).not.toContain('.team');
  });

  it('says in each handoff which branch holds the merged work', () => {
    const name = readdirSync(run.paths.handoffsDir).find((n) => n.endsWith('-team-exec.md'))!;
    const handoff = readFileSync(join(run.paths.handoffsDir, name), 'utf8');
    expect(handoff).toContain(`merged work on branch ${branch}, each task's own on ${branch}--<task>`);
  });

  it('names the branch and the command that takes it in the summary and in status', async () => {
    expect(result.stderr).toContain(`the work is on ${branch}: \`team land --run ${run.runId}\` merges it into main`);
    const status = await project.run('status');
    expect(status.stdout).toContain(`t2: ${branch}--t2 merged`);
  });

  it('refuses `team land` while the working tree has uncommitted changes, changing nothing', async () => {
    const before = project.git('rev-parse', 'main');
    project.write(FILE, 'my own edit\n');
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain(`team land: your working tree has uncommitted changes (${FILE}); nothing was changed`);
    expect(project.git('rev-parse', 'main')).toBe(before);
    expect(readFileSync(join(project.dir, FILE), 'utf8')).toBe('my own edit\n');
    expect(eventsOf(project.readRun().events, 'branch_landed')).toEqual([]);
    project.git('checkout', '--', FILE);
  });

  it('lands into main with `team land`, then clean removes the worktrees and the merged branches', async () => {
    const land = await project.run('land');
    expect(land.exitCode, land.stderr).toBe(0);
    expect(land.stderr).toContain(`landed ${branch} into main`);
    expect(project.git('show', `main:${FILE}`)).toBe('ONE by t1\ntwo\nTHREE by t2\nfour\nFIVE by t3');
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(project.git('branch', '--list', 'team/*')).toBe('');
    expect(existsSync(worktreesFolder(run))).toBe(false);
  });
});

describe('worktree isolation: --land', () => {
  it('lands the completed run into the user\'s branch at its end', async () => {
    const project = makeGitProject({ plan: { count: 1 } });
    const result = await project.run('2:executor', 'land it at once', '--agent', 'sim', '--land');
    const runId = project.readRun().runId;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`landed team/${runId} into main`);
    expect(project.git('show', 'main:sim-output/t1.txt')).toContain('task t1 attempt 1');
    expect(result.stderr).not.toContain('team land --run');
  });
});
