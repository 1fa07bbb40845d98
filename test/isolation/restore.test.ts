// One worker shares the user's checkout (isolation none, the default for one worker): the fence
// keeps everything outside the project, and the user's uncommitted work at the run's start is saved
// under refs/team/<run>/start, so that `team restore` brings it back after an agent trampled it,
// keeping what it replaced under refs/team/<run>/before-restore.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, hasSpawned } from '../helpers/sim-project.js';
import { GIT_ENV, makeGitProject, type GitProject } from '../helpers/git-project.js';
import { runTeam } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

const homes: string[] = [];
afterAll(() => {
  removeProjects();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

// The agent overwrites the user's edit, deletes their untracked file, and tries their shell setup.
const TRAMPLE = 'echo agent > notes.txt; rm -f mine.txt; echo "alias ls=rm" >> "$HOME/.bashrc"; true';

function team(project: GitProject, home: string, ...args: string[]) {
  return runTeam(args, { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, HOME: home } });
}

describe('isolation none: the user\'s checkout saved at the start, and team restore', () => {
  it('saves the uncommitted work, fences the home, and restores the tree an agent trampled, keeping what it replaced', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: TRAMPLE } }] }, {}, { 'notes.txt': 'committed\n' });
    project.write('notes.txt', 'committed\nmy uncommitted edit\n');
    project.write('mine.txt', 'mine, never added\n');
    const home = mkdtempSync(join(tmpdir(), 'teamline-restore-home-'));
    homes.push(home);
    writeFileSync(join(home, '.bashrc'), '# mine\n');
    const headBefore = project.git('rev-parse', 'HEAD');
    const result = await team(project, home, '1:executor', 'trample the checkout', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const ref = `refs/team/${run.runId}/start`;
    expect(eventsOf(run.events, 'run_started')[0]!.isolation).toMatchObject({ mode: 'none' });
    const [saved] = eventsOf(run.events, 'checkout_saved');
    expect(saved).toMatchObject({ ref, paths: ['notes.txt', 'mine.txt'] });
    expect(result.stderr).toContain(`is saved as ${ref}: \`team restore --run ${run.runId}\` brings it back`);
    // The agent could trample the checkout (it works there) but not the home.
    expect(readFileSync(join(project.dir, 'notes.txt'), 'utf8')).toBe('agent\n');
    expect(existsSync(join(project.dir, 'mine.txt'))).toBe(false);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# mine\n');
    expect(eventsOf(run.events, 'fence_refused')[0]!.paths).toEqual([join(home, '.bashrc')]);
    expect((await team(project, home, 'status')).stdout).toContain(`your uncommitted work at the start is kept as ${ref}`);
    const restored = await team(project, home, 'restore');
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(readFileSync(join(project.dir, 'notes.txt'), 'utf8')).toBe('committed\nmy uncommitted edit\n');
    expect(readFileSync(join(project.dir, 'mine.txt'), 'utf8')).toBe('mine, never added\n');
    // The index, HEAD and branches as they were: mine.txt untracked again, notes.txt modified, not staged.
    expect(project.git('rev-parse', 'HEAD')).toBe(headBefore);
    expect(project.git('status', '--porcelain', '--', 'notes.txt', 'mine.txt')).toBe(' M notes.txt\n?? mine.txt'.trim());
    // What the restore replaced (the agent's work) is kept.
    const kept = `refs/team/${run.runId}/before-restore`;
    expect(restored.stderr).toContain(`what it held before is kept as ${kept}`);
    expect(project.git('show', `${kept}:notes.txt`)).toBe('agent');
    expect(eventsOf(project.readRun().events, 'checkout_restored')).toHaveLength(1);
    expect((await team(project, home, 'status')).stdout).toContain(`your working tree was restored to ${ref}; what it held before is kept as ${kept}`);
  });

  it('refuses to restore while the run still works in the checkout, and restores once it ended', async () => {
    const held = 'until [ -e .team/release ]; do sleep 0.05; done';
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: held } }] }, {}, { 'notes.txt': 'committed\n' });
    project.write('notes.txt', 'committed\nmine\n');
    const home = mkdtempSync(join(tmpdir(), 'teamline-restore-home-'));
    homes.push(home);
    const running = team(project, home, '1:executor', 'hold the checkout', '--agent', 'sim');
    await waitFor('t1 spawned', () => hasSpawned(project, 't1'));
    const early = await team(project, home, 'restore');
    expect(early.exitCode).toBe(2);
    expect(early.stderr).toContain(`team restore: run ${project.readRun().runId} is still running in your checkout; cancel it first`);
    writeFileSync(join(project.dir, '.team', 'release'), '');
    expect((await running).exitCode).toBe(0);
    expect((await team(project, home, 'restore')).exitCode).toBe(0);
    expect(readFileSync(join(project.dir, 'notes.txt'), 'utf8')).toBe('committed\nmine\n');
  });

  it('refuses a run that saved nothing, naming why', async () => {
    const project = makeGitProject({ plan: { count: 1 } });
    const home = mkdtempSync(join(tmpdir(), 'teamline-restore-home-'));
    homes.push(home);
    expect((await team(project, home, '1:executor', 'a clean checkout', '--agent', 'sim')).exitCode).toBe(0);
    const restore = await team(project, home, 'restore');
    expect(restore.exitCode).toBe(2);
    expect(restore.stderr).toContain(`team restore: run ${project.readRun().runId} saved no checkout: it ran in worktrees, or your checkout had nothing uncommitted when it started`);
  });
});
