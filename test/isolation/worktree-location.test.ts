// Where a run's worktrees live: outside the project (the state folder), so that the user's own test
// runner never runs the copies of the project's tests in them; in the project's `.team/worktrees/`
// only where the state folder cannot be written, saying so; and an older run's worktrees there (its
// run_started recorded no folder) are still found by `team clean`.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { GIT_ENV, makeGitProject, worktreesFolder, type GitProject } from '../helpers/git-project.js';
import { runTeam } from '../helpers/team.js';

afterAll(removeProjects);

const TWO = { plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] } };

// A small Node library with two tests, run by `npm test` as `node --test` (it finds every
// `*.test.js` under the folder, whatever git ignores).
const LIBRARY = {
  'package.json': JSON.stringify({ name: 'slugify', type: 'module', scripts: { test: 'node --test' } }, null, 2),
  'slugify.js': "export const slugify = (s) => s.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');\n",
  'test/slugify.test.js': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert';",
    "import { slugify } from '../slugify.js';",
    "test('lowers', () => assert.equal(slugify('AB'), 'ab'));",
    "test('joins words', () => assert.equal(slugify('a b'), 'a-b'));",
    '',
  ].join('\n'),
};

// What `node --test` in the project reports: its number of tests.
async function nodeTestCount(project: GitProject): Promise<{ tests: number; output: string }> {
  const result = await execa(process.execPath, ['--test'], { cwd: project.dir, reject: false, env: { NODE_TEST_CONTEXT: undefined } });
  const output = `${result.stdout}\n${result.stderr}`;
  return { tests: Number(/^# tests (\d+)$/m.exec(output)?.[1] ?? NaN), output };
}

describe('worktrees outside the project', () => {
  it("keeps a run's worktrees out of the project, where the user's `node --test` never sees them, and team clean removes them", async () => {
    const project = makeGitProject(TWO, {}, LIBRARY);
    expect((await nodeTestCount(project)).tests).toBe(2);
    const made: number[] = [];
    for (const task of ['validate input', 'slugify more']) {
      const result = await project.run('2:executor', task, '--agent', 'sim');
      expect(result.exitCode, result.stderr).toBe(0);
      const run = project.readRun();
      const folder = worktreesFolder(run);
      // In the suite's state folder (XDG_STATE_HOME, test/helpers/state-home.ts), one folder per project, one per run.
      expect(folder.startsWith(join(process.env.XDG_STATE_HOME!, 'teamline', 'worktrees') + '/'), folder).toBe(true);
      expect(folder.startsWith(project.dir)).toBe(false);
      expect(result.stderr).toContain(`each worker in its own worktree (in ${folder})`);
      const ready = eventsOf(run.events, 'worktree_ready');
      expect(ready.length).toBeGreaterThanOrEqual(3);
      for (const e of ready) expect(dirname(e.path)).toBe(folder);
      made.push(new Set(ready.map((e) => e.path)).size);
      // The copies of the library's test are there, and the user's runner does not run them.
      expect(existsSync(join(folder, 'integration', 'test', 'slugify.test.js'))).toBe(true);
    }
    const seen = await nodeTestCount(project);
    expect(seen.tests, seen.output).toBe(2);
    expect(existsSync(join(project.dir, '.team', 'worktrees'))).toBe(false);
    // team clean finds them where the runs recorded them, and removes them.
    const listed = () => project.git('worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '));
    expect(listed()).toHaveLength(1 + made[0]! + made[1]!);
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr.match(/removed \d+ worktree\(s\)/g)).toEqual(made.map((n) => `removed ${n} worktree(s)`));
    expect(listed()).toHaveLength(1);
    expect(existsSync(worktreesFolder(project.readRun()))).toBe(false);
  });

  it('keeps them in the project where the state folder cannot be written, says so and why, and cleans them there', async () => {
    const project = makeGitProject(TWO, {}, LIBRARY);
    // A state folder under a file: nothing can be made in it (a sandbox refuses the same way).
    const blocked = join(dirname(project.dir), `${project.dir.split('/').at(-1)}-state-file`);
    writeFileSync(blocked, 'a file, not a folder\n');
    const env = { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, XDG_STATE_HOME: blocked };
    const result = await runTeam(['2:executor', 'no state folder here', '--agent', 'sim'], { cwd: project.dir, env });
    rmSync(blocked);
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const folder = worktreesFolder(run);
    expect(folder).toBe(join(project.dir, '.team', 'worktrees', run.runId));
    expect(result.stderr).toContain(`isolation: the worktrees are in the project's .team/worktrees/ (your test runner may see them there): ${join(blocked, 'teamline', 'worktrees')}`);
    expect(result.stderr).toContain('cannot be written here (ENOTDIR)');
    expect(eventsOf(run.events, 'run_started')[0]!.isolation!.worktreesWhy).toContain('ENOTDIR');
    for (const e of eventsOf(run.events, 'worktree_ready')) expect(dirname(e.path)).toBe(folder);
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toContain(`run ${run.runId}: removed 3 worktree(s)`);
    expect(existsSync(folder)).toBe(false);
  });

  it("cleans an older run's worktrees in .team/worktrees/, whose run_started recorded no folder", async () => {
    const project = makeGitProject(TWO, {}, LIBRARY);
    const env = { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, XDG_STATE_HOME: '/dev/null' };
    const result = await runTeam(['2:executor', 'an older run', '--agent', 'sim'], { cwd: project.dir, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    // The run_started an older teamline wrote: no worktrees folder, no reason (and no cached view).
    const started = eventsOf(run.events, 'run_started')[0]!;
    const file = join(run.paths.runDir, 'events', started.file);
    const record = JSON.parse(readFileSync(file, 'utf8')) as { isolation: Record<string, unknown> };
    delete record.isolation.worktrees;
    delete record.isolation.worktreesWhy;
    writeFileSync(file, JSON.stringify(record, null, 2));
    for (const cache of readdirSync(run.paths.runDir).filter((name) => name.endsWith('snapshot.json'))) rmSync(join(run.paths.runDir, cache));
    const legacy = join(project.dir, '.team', 'worktrees', run.runId);
    expect(readdirSync(legacy).sort()).toEqual(['integration', 'worker-1', 'worker-2']);
    const clean = await project.run('clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toContain(`run ${run.runId}: removed 3 worktree(s)`);
    expect(existsSync(legacy)).toBe(false);
  });
});
