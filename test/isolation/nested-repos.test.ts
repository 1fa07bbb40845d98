// A git repository an agent made inside its worktree (`git init` in a folder, or a `.git` file)
// is committed as plain files, never as a gitlink to a commit that exists nowhere else.
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, showFile, type GitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

// One task whose agent runs `shell` in its worktree after writing its files.
function oneTask(shell: string) {
  return { plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell } }] };
}

// The gitlinks (mode 160000) in a commit's tree.
function gitlinks(project: GitProject, ref: string): string[] {
  return project.git('ls-tree', '-r', ref).split('\n').filter((line) => line.startsWith('160000'));
}

// A run of `shell`, landed and cleaned: the run's branch and the user's main after it.
async function runLandClean(shell: string) {
  const project = makeGitProject(oneTask(shell));
  const result = await project.run('2:executor', 'make a repository inside the project', '--agent', 'sim');
  expect(result.exitCode, result.stderr).toBe(0);
  const run = project.readRun();
  const branch = `team/${run.runId}`;
  const linksOnBranch = gitlinks(project, branch);
  const land = await project.run('land');
  expect(land.exitCode, land.stderr).toBe(0);
  const clean = await project.run('clean');
  expect(clean.exitCode, clean.stderr).toBe(0);
  return { project, run, branch, linksOnBranch };
}

describe('worktree isolation: git repositories an agent made inside the project', () => {
  it('commits the files of a repository made with git init and a commit as plain files, which survive land and clean', async () => {
    const { project, run, linksOnBranch } = await runLandClean('mkdir lib && cd lib && git init -q && echo hi > x.txt && git add x.txt && git commit -qm inside && echo later > y.txt');
    expect(linksOnBranch).toEqual([]);
    expect(showFile(project, 'main', 'lib/x.txt')).toBe('hi');
    expect(showFile(project, 'main', 'lib/y.txt')).toBe('later');
    const committed = eventsOf(run.events, 'task_committed').find((e) => e.task_id === 't1')!;
    expect(committed.files).toEqual(expect.arrayContaining(['lib/x.txt', 'lib/y.txt']));
    expect(committed.why).toBe('completed; lib/ is a git repository of its own: its files are committed as plain files (its .git stays in the worktree)');
  });

  it('commits the files of a repository made with git init and no commit, which git add refuses', async () => {
    const { project, linksOnBranch } = await runLandClean('mkdir empty && cd empty && git init -q && echo data > d.txt');
    expect(linksOnBranch).toEqual([]);
    expect(showFile(project, 'main', 'empty/d.txt')).toBe('data');
  });

  it('replaces a gitlink the agent committed itself by the files of its folder', async () => {
    const { project, run, linksOnBranch } = await runLandClean('mkdir lib && (cd lib && git init -q && echo hi > x.txt && git add x.txt && git commit -qm inside) && git add -A 2>/dev/null && git commit -qm "the agent commits a gitlink"');
    expect(linksOnBranch).toEqual([]);
    expect(gitlinks(project, 'main')).toEqual([]);
    expect(showFile(project, 'main', 'lib/x.txt')).toBe('hi');
    expect(eventsOf(run.events, 'task_committed').map((e) => e.why)).toContain('lib/ was committed as a gitlink to a git repository of its own: its files are committed as plain files in its place (its .git stays in the worktree)');
  });

  it('commits the files of a folder with a .git file that points to a repository elsewhere', async () => {
    const { project, linksOnBranch } = await runLandClean('d=$(mktemp -d) && git init -q --separate-git-dir "$d/elsewhere.git" linked && cd linked && echo linked > l.txt && git add l.txt && git commit -qm elsewhere');
    expect(linksOnBranch).toEqual([]);
    expect(showFile(project, 'main', 'linked/l.txt')).toBe('linked');
  });

  it('fails the task naming a gitlink the agent committed whose folder it then emptied, merging nothing', async () => {
    const project = makeGitProject(oneTask('mkdir lib && (cd lib && git init -q && echo hi > x.txt && git add x.txt && git commit -qm inside) && git add -A 2>/dev/null && git commit -qm "a gitlink" && rm -rf lib && mkdir lib'));
    await project.run('2:executor', 'leave a gitlink to nowhere', '--agent', 'sim');
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    const first = eventsOf(run.events, 'task_finished').find((e) => e.task_id === 't1')!;
    expect(first.status).toBe('failed');
    expect(first.evidence).toMatch(new RegExp(`^${branch}--t1 commits lib/ as a gitlink to [0-9a-f]{10}, a commit of a git repository that is not this one, and the folder holds no files to commit in its place: not merged into ${branch}; the branch is kept`));
    expect(gitlinks(project, branch)).toEqual([]);
    expect(eventsOf(run.events, 'merge_done').filter((e) => e.task_id === 't1' && e.attempt === 1)).toEqual([]);
  });
});
