// `team land` never overwrites what is the user's: a file the run's tree adds that is ignored and
// present in the checkout is named and nothing merged, and a detached HEAD is refused.
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

describe('team land: what it refuses', () => {
  it('refuses a merge that would overwrite an ignored file of the checkout (an agent ran git add -f .env), naming it', async () => {
    const project = makeGitProject(
      { plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { files: [{ path: '.env', content: 'TOKEN=from-the-agent\n' }, { path: 'work.txt' }], commit: { force: ['.env'] } } }] },
      {},
      { '.gitignore': '.env\n', '.env': 'TOKEN=mine\n' },
    );
    const result = await project.run('2:executor', 'force-add an ignored file', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = project.readRun().runId;
    const branch = `team/${runId}`;
    expect(project.git('ls-tree', '--name-only', branch)).toContain('.env');
    const before = project.git('rev-parse', 'main');
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain(`team land: ${branch} adds files that are already in your checkout, untracked or ignored by git: .env (ignored); the merge would overwrite them, so nothing was changed. Move them out of the way (or commit them), then run \`team land --run ${runId}\` again (the work stays on ${branch})`);
    expect(readFileSync(join(project.dir, '.env'), 'utf8')).toBe('TOKEN=mine\n');
    expect(project.git('rev-parse', 'main')).toBe(before);
    expect(eventsOf(project.readRun().events, 'branch_landed')).toEqual([]);
    renameSync(join(project.dir, '.env'), join(project.dir, '.env.mine'));
    const again = await project.run('land');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readFileSync(join(project.dir, '.env.mine'), 'utf8')).toBe('TOKEN=mine\n');
  });

  it('refuses to land on a detached HEAD, changing nothing', async () => {
    const project = makeGitProject({ plan: { count: 1 } });
    const result = await project.run('2:executor', 'land on no branch', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = project.readRun().runId;
    project.git('checkout', '--quiet', '--detach', 'main');
    const head = project.git('rev-parse', 'HEAD');
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain(`team land: HEAD is detached, on no branch; nothing was changed. Check out the branch to land into, then run \`team land --run ${runId}\` again (the work stays on team/${runId})`);
    expect(project.git('rev-parse', 'HEAD')).toBe(head);
    expect(eventsOf(project.readRun().events, 'branch_landed')).toEqual([]);
    project.git('checkout', '--quiet', 'main');
    const again = await project.run('land');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`landed team/${runId} into main`);
  });
});
