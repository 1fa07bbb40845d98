// One damaged run folder never hides the others: `team list` lists the runs it can read and names
// the ones it cannot; `team status` of a good run reads it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles } from '../helpers/sim-project.js';

const SCENARIO = { name: 'two', plan: { tasks: [{ id: 'a', title: 'A', acceptance: ['a'] }, { id: 'b', title: 'B', acceptance: ['b'] }] } };

afterAll(removeProjects);

describe('team list with a damaged run', () => {
  let project: GitProject;
  const ids: string[] = [];
  const runJson = (id: string) => join(project.dir, '.team', 'runs', id, 'run.json');

  beforeAll(async () => {
    project = makeGitProject(SCENARIO, { roles: allRoles('sim') });
    for (const task of ['first run of two', 'second run of two', 'third run of two']) {
      const run = await project.run('2:executor', task);
      expect(run.exitCode, run.stderr).toBe(0);
      ids.push(project.readRun().runId);
    }
    // Torn in the middle of its JSON, and a JSON that is no run record.
    const text = readFileSync(runJson(ids[0]!), 'utf8');
    writeFileSync(runJson(ids[0]!), text.slice(0, text.length / 2));
    writeFileSync(runJson(ids[2]!), `${JSON.stringify(['\u001b]2;pwned\u0007'])}\n`);
  }, 120_000);

  it('lists the runs it can read and names each it cannot, with its file and why', async () => {
    const listed = await project.team('list');
    expect(listed.exitCode, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${ids[1]} +team +completed .* second run of two$`));
    expect(listed.stderr).toBe(
      `team list: run ${ids[0]} is not listed: ${runJson(ids[0]!)} is unreadable or not valid JSON (${jsonError(ids[0]!)}); the run cannot be read\n` +
        `team list: run ${ids[2]} is not listed: ${runJson(ids[2]!)} is not a run record (not a JSON object); the run cannot be read\n`,
    );
    const json = await project.team('list', '--json');
    expect(json.exitCode).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ id: string }>).map((row) => row.id)).toEqual([ids[1]]);
    expect(json.stderr).toBe(listed.stderr);
  });

  it('reads a good run by name, and names the damaged file of a bad one', async () => {
    const good = await project.team('status', '--run', ids[1]!);
    expect(good.exitCode, good.stderr).toBe(0);
    expect(good.stdout).toContain('  task   second run of two\n');
    const bad = await project.team('status', '--run', ids[2]!);
    expect(bad).toEqual({ exitCode: 2, stdout: '', stderr: `team: ${runJson(ids[2]!)} is not a run record (not a JSON object); the run cannot be read\n` });
  });

  // The parser's own words for the torn file.
  function jsonError(id: string): string {
    try {
      JSON.parse(readFileSync(runJson(id), 'utf8'));
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  }
});
