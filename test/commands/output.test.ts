// How the built CLI writes: a reader that leaves early is no error, and a message names the program once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../helpers/project.js';
import { CLI } from '../helpers/team.js';

afterAll(removeProjects);

describe('cli', () => {
  it('stops quietly when the reader of its output goes away (team status | head -1)', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    // Enough reported files that the status outgrows a pipe's buffer, so it is still writing when head leaves.
    const events = project.eventsDir(runId);
    for (let i = 0; i < 3000; i += 1) writeFileSync(join(events, `stray-${i}-a-file-name-long-enough-to-fill-the-pipe.txt`), 'x\n');
    const result = await execa('bash', ['-c', `node ${CLI} status | head -1; echo "team exited \${PIPESTATUS[0]}" >&2`], { cwd: project.dir, reject: false });
    expect(result.stdout).toBe(`run ${runId} (team, profile test)`);
    expect(result.stderr).toBe('team exited 0');
  });

  it('names the program once in an error that names its command', async () => {
    const project = makeProject();
    const result = await project.team('state', 'retry', '--run', await project.startRun(), '--task', 't9', '--reason', 'why');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state retry: task t9 has no attempt to retry\n');
  });

  it('names the program once in an error of the run command', async () => {
    const project = makeProject();
    const result = await project.team('3:executor', 'two', 'words', '--agent', 'sim');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team: give the task as one quoted argument (got 2 words: quote them)\n');
  });

  it('prefixes an error that names no command with the program', async () => {
    const project = makeProject();
    const result = await project.team('status', '--run', '../x');
    expect(result.stderr).toBe('team: --run: "../x" is not a valid id (letters, digits, . _ -, starting with a letter or digit, at most 128)\n');
  });
});
