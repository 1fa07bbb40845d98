// `team merge-driver`, registered in a real clone, resolves timestamp-only conflicts of `git merge` and leaves real ones.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTRIBUTES_LINE, DRIVER_NAME } from '../../src/checkpoint/git-drivers.js';
import { makeProject, removeProjects } from '../helpers/project.js';

afterAll(removeProjects);

const FILE = '.checkpoints/team.checkpoint.json';

const BASE = {
  protocol_version: '1.1',
  skill: 'team',
  project: 'demo',
  project_dir: '/tmp/demo',
  created_at: '2026-11-30T10:00:00.000Z',
  updated_at: '2026-11-30T10:00:00.000Z',
  phase: 'team-exec',
  step: 't1',
  status: 'in_progress',
  progress_summary: 'working',
  next_actions: ['wait'],
  skill_state: { run_id: 'r1', last_run: { events: 10 } },
};

// A repository whose main holds BASE; `ours` is committed on main and `theirs` on branch `other`.
async function repoWith(ours: object, theirs: object, register: boolean) {
  const project = makeProject();
  const git = (...args: string[]) => execa('git', args, { cwd: project.dir, reject: false });
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.email', 't@example.com');
  await git('config', 'user.name', 't');
  if (register) {
    const init = await project.team('init', '--git-drivers');
    if (init.exitCode !== 0) throw new Error(`team init --git-drivers exited ${init.exitCode}: ${init.stderr}`);
  }
  const put = (doc: object) => project.write(FILE, `${JSON.stringify(doc, null, 2)}\n`);
  put(BASE);
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  await git('checkout', '-qb', 'other');
  put(theirs);
  await git('commit', '-qam', 'theirs');
  await git('checkout', '-q', 'main');
  put(ours);
  await git('commit', '-qam', 'ours');
  const merge = await git('merge', '-q', '--no-edit', 'other');
  return { merge, text: readFileSync(join(project.dir, FILE), 'utf8'), dir: project.dir };
}

describe('merge-driver', () => {
  const ours = { ...BASE, updated_at: '2026-11-30T11:00:00.000Z', skill_state: { run_id: 'r1', last_run: { events: 12 } } };
  const theirs = { ...BASE, updated_at: '2026-11-30T12:00:00.000Z', skill_state: { run_id: 'r1', last_run: { events: 14 } } };

  it('without the driver, a change of timestamps on both sides is a conflict', async () => {
    const { merge } = await repoWith(ours, theirs, false);
    expect(merge.exitCode).not.toBe(0);
  });

  it('takes the newer side for timestamps and telemetry, with no conflict', async () => {
    const { merge, text, dir } = await repoWith(ours, theirs, true);
    expect(merge.exitCode, merge.stderr + merge.stdout).toBe(0);
    expect(JSON.parse(text)).toEqual({ ...BASE, updated_at: '2026-11-30T12:00:00.000Z', skill_state: { run_id: 'r1', last_run: { events: 14 } } });
    expect(text.endsWith('}\n')).toBe(true);
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toBe(`${ATTRIBUTES_LINE}\n`);
  });

  it('keeps a change made on one side only, and drops a field deleted on one side', async () => {
    const { next_actions: _dropped, ...withoutActions } = { ...theirs, step: 't2' };
    const { merge, text } = await repoWith({ ...ours, phase: 'team-verify' }, withoutActions, true);
    expect(merge.exitCode, merge.stderr + merge.stdout).toBe(0);
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ phase: 'team-verify', step: 't2', updated_at: '2026-11-30T12:00:00.000Z' });
    expect(doc).not.toHaveProperty('next_actions');
  });

  it('leaves conflict markers when a field changed on both sides, and names it', async () => {
    const { merge, text } = await repoWith({ ...ours, phase: 'team-verify' }, { ...theirs, phase: 'team-fix' }, true);
    expect(merge.exitCode).toBe(1);
    expect(merge.stdout + merge.stderr).toContain('changed on both sides: phase');
    expect(text).toMatch(/^<<<<<<< /m);
    expect(text).toMatch(/^>>>>>>> /m);
  });

  it('treats arrays as atomic: two different edits of one array conflict', async () => {
    const { merge } = await repoWith({ ...ours, next_actions: ['a'] }, { ...theirs, next_actions: ['b'] }, true);
    expect(merge.exitCode).toBe(1);
  });

  it('leaves conflict markers when a side is not JSON', async () => {
    const project = makeProject();
    const a = project.write('a.json', '{"x": 1, "updated_at": "2026-11-30T11:00:00Z"}\n');
    const o = project.write('o.json', '');
    const b = project.write('b.json', 'not json\n');
    const result = await project.team('merge-driver', o, a, b, FILE);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('a side is not a JSON object');
    expect(readFileSync(a, 'utf8')).toMatch(/^<<<<<<< ours:/m);
  });

  it('team init --git-drivers refuses a folder outside git, and --global, writing nothing', async () => {
    const project = makeProject();
    const outside = await project.team('init', '--git-drivers');
    expect(outside.exitCode).toBe(2);
    expect(outside.stderr).toBe(`team: --git-drivers: ${project.dir} is not in a git work tree\n`);
    const global = await project.team('init', '--git-drivers', '--global');
    expect(global.exitCode).toBe(2);
    expect(global.stderr).toContain('--git-drivers and --global exclude each other');
    expect(readdirSync(project.dir)).toEqual([]);
  });

  it('team init --git-drivers registers once, however often it runs', async () => {
    const project = makeProject();
    await execa('git', ['init', '-q'], { cwd: project.dir });
    for (let i = 0; i < 2; i += 1) expect((await project.team('init', '--git-drivers')).exitCode).toBe(0);
    expect(readFileSync(join(project.dir, '.gitattributes'), 'utf8')).toBe(`${ATTRIBUTES_LINE}\n`);
    const driver = await execa('git', ['config', `merge.${DRIVER_NAME}.driver`], { cwd: project.dir });
    expect(driver.stdout).toMatch(/dist\/cli\/team\.cjs" merge-driver %O %A %B %P$/);
  });

  it('refuses missing arguments with exit 2', async () => {
    const project = makeProject();
    const result = await project.team('merge-driver', 'only-one');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('expected <base %O> <ours %A> <theirs %B>');
  });
});
