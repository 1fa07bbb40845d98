// The database drivers (pg, pg-boss, and what they require: about 100 ms of a command's start) load
// only for a PostgreSQL store: a run on files, its status, report and list never require them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';
import { CLI, ROOT } from '../helpers/team.js';

afterAll(removeProjects);

const HOOK = join(ROOT, 'test/fixtures/hooks/record-loads.cjs');

// `team <args>` in `cwd`, with the hook recording the drivers each node process requires.
async function teamRecorded(cwd: string, args: string[]): Promise<{ exitCode: number; stderr: string; loads: string[] }> {
  const loadsFile = join(cwd, `loads-${args[0]!.replace(/\W/g, '')}.txt`);
  const result = await execa('node', ['--require', HOOK, CLI, ...args], { cwd, reject: false, stdin: 'ignore', env: { TEAM_TEST_LOADS: loadsFile } });
  const loads = existsSync(loadsFile) ? readFileSync(loadsFile, 'utf8').trim().split('\n').map((line) => line.split(' ')[1]!) : [];
  return { exitCode: result.exitCode ?? -1, stderr: String(result.stderr), loads };
}

describe('database drivers', () => {
  it('are never required by a run on files, nor by its status, report and list', async () => {
    const project = makeSimProject('agents-one-task');
    const run = await teamRecorded(project.dir, ['1:executor', 'add one greeting', '--agent', 'sim']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.loads).toEqual([]);
    for (const command of [['status'], ['report'], ['list']]) {
      const shown = await teamRecorded(project.dir, command);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.loads).toEqual([]);
    }
  });

  it('are required once a store is named (the hook sees them: the check above can fail)', async () => {
    const project = makeSimProject('agents-one-task');
    // Nothing listens on port 1 of the loopback: the store cannot be reached, after loading pg.
    const run = await teamRecorded(project.dir, ['status', '--store', 'postgres://teamline@127.0.0.1:1/none']);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('cannot be reached');
    expect(run.loads).toContain('pg');
  });
});
