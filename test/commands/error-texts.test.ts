// Errors that name the right thing, briefly: a damaged `.team/runs/current` is blamed on that file
// (never on a --run nobody gave) with at most a short, safe prefix of what it holds; an empty task
// is "the task is empty"; a --store that is no PostgreSQL URL never shows its password.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles } from '../helpers/sim-project.js';

const SCENARIO = { name: 'two', plan: { tasks: [{ id: 'a', title: 'A', acceptance: ['a'] }, { id: 'b', title: 'B', acceptance: ['b'] }] } };
const HINT = 'it should hold the id of the latest run (remove it, and `team list` names the runs)';

afterAll(removeProjects);

describe('error texts', () => {
  let project: GitProject;
  let runId: string;
  let current: string;
  const replaceCurrent = (make: () => void) => {
    rmSync(current, { recursive: true, force: true });
    make();
  };

  beforeAll(async () => {
    project = makeGitProject(SCENARIO, { roles: allRoles('sim') });
    const run = await project.run('2:executor', 'make the parser strict');
    expect(run.exitCode, run.stderr).toBe(0);
    runId = project.readRun().runId;
    current = join(project.dir, '.team', 'runs', 'current');
  }, 60_000);

  it('blames garbage in current on current, quoting a short safe prefix', async () => {
    replaceCurrent(() => writeFileSync(current, `zz\u001b]2;pwned\u0007 ${'x'.repeat(500)}\n`));
    for (const command of ['status', 'wait', 'report', 'watch']) {
      expect(await project.team(command)).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${current}: "zz ${'x'.repeat(56)}…" is not a run id; ${HINT}\n` });
    }
    // A named run does not read current.
    expect((await project.team('status', '--run', runId)).exitCode).toBe(0);
  });

  it('refuses a 1 MB current by its size, without printing it', async () => {
    replaceCurrent(() => writeFileSync(current, 'y'.repeat(1024 * 1024)));
    expect(await project.team('status')).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${current}: 1048576 bytes, over the limit of 1024; ${HINT}\n` });
  });

  it('says current is a folder, a link or names a run that is gone', async () => {
    replaceCurrent(() => mkdirSync(current));
    expect(await project.team('status')).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${current}: not a regular file (a folder); ${HINT}\n` });
    const outside = join(project.dir, '..', `outside-${runId}.txt`);
    writeFileSync(outside, 'the contents of a file outside the project\n');
    replaceCurrent(() => symlinkSync(outside, current));
    expect(await project.team('wait')).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${current}: a symbolic link (never followed); ${HINT}\n` });
    rmSync(outside);
    replaceCurrent(() => writeFileSync(current, '20200101T000000000000Z-gone01\n'));
    expect(await project.team('status')).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${current}: no run 20200101T000000000000Z-gone01 in ${join(project.dir, '.team', 'runs')}\n` });
    replaceCurrent(() => writeFileSync(current, `${runId}\n`));
    expect((await project.team('status')).exitCode).toBe(0);
  });

  it.each([{ args: [''] }, { args: ['   '] }, { args: ['2:executor', ' \t '] }, { args: ['--task', ''] }, { args: ['ralph', ''] }])('says an empty or blank task is empty: team $args', async ({ args }) => {
    const cmd = args[0] === 'ralph' ? 'team ralph' : 'team';
    expect(await project.team(...args)).toEqual({ exitCode: 2, stdout: '', stderr: `${cmd}: the task is empty\n` });
  });

  it.each([
    ['pg://u:s3cretpw@localhost/db', 'pg://u:***@localhost/db'],
    ['postgress://u:s3cretpw@localhost:5432/db', 'postgress://u:***@localhost:5432/db'],
    ['postgres://u:s3cretpw@', 'postgres://u:***@'],
    ['postgres://u:s3cret/pw@/db', 'postgres://u:***@/db'],
    ['postgres://u@/db?password=s3cretpw', 'postgres://u@/db?password=***'],
  ])('never shows the password of --store %s', async (url, shown) => {
    for (const args of [['list'], ['status'], ['wait'], ['2:executor', 'make the parser strict']]) {
      const result = await project.team(...args, '--store', url);
      expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `team: --store: "${shown}" is not a PostgreSQL URL (postgres://user:password@host:port/database); without --store, runs are the files under .team/runs\n` });
    }
    const worker = await project.team('worker', '--store', url);
    expect(worker).toEqual({ exitCode: 2, stdout: '', stderr: 'team worker: --store must be a PostgreSQL URL (postgres://user:password@host:port/database)\n' });
  });
});
