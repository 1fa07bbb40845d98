// A retried attempt is told what the attempt before it left: how it ended, and the changes the
// folder it works in still holds (kept, to be read before they are changed). A real git repository
// with its worktree, the sim agent whose first attempt writes a file and then fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { earlierSection } from '../../src/attempt/prepare/earlier.js';

afterAll(removeProjects);

describe('a retried attempt', () => {
  it('names the attempt before it, how it ended, and the files it left in the worktree', async () => {
    const project = makeGitProject(
      {
        plan: { tasks: [{ id: 't1', title: 'Greet', acceptance: ['world.txt says hello'] }] },
        rules: [{ match: { stage: 'team-exec', task: 't1', attempt: 1 }, do: { shell: 'echo hello > world.txt && echo edited >> README.md', fail: 't1 ran out of time after writing world.txt' } }],
      },
      // One worker in its own worktree: the retry runs where the first attempt wrote.
      { team: { isolation: 'worktree' } },
      { 'README.md': '# greet\n' },
    );
    const result = await project.run('1:executor', 'greet the world', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const { runId } = project.readRun();
    const first = readFileSync(join(project.runDir(runId), 'attempts/t1/a1/prompt.md'), 'utf8');
    const retry = readFileSync(join(project.runDir(runId), 'attempts/t1/a2/prompt.md'), 'utf8');
    expect(first).not.toContain('## The attempt before this one');
    const section = retry.slice(retry.indexOf('## The attempt before this one'));
    expect(section).toContain('Attempt 1 of this task ended failed: the agent reported failure: t1 ran out of time after writing world.txt');
    expect(section).toContain('read each file before you change or overwrite it');
    expect(section).toContain('- added world.txt');
    expect(section).toContain('- modified README.md');
    // The part that differs per attempt comes after what every attempt of the stage shares.
    expect(retry.indexOf('## The attempt before this one')).toBeGreaterThan(retry.indexOf('## Your result'));
  }, 60_000);
});

describe('the retry section', () => {
  it('says the folder holds nothing of the earlier attempt, names only its end when the folder is unknown, and caps a long list', () => {
    const end = { attempt: 2, status: 'interrupted', evidence: 'stopped: budget spent' };
    expect(earlierSection({ ...end, changes: [] })).toBe('## The attempt before this one\n\nAttempt 2 of this task ended interrupted: stopped: budget spent.\nThe folder you work in holds no change of it.');
    expect(earlierSection(end)).toBe('## The attempt before this one\n\nAttempt 2 of this task ended interrupted: stopped: budget spent.');
    const many = earlierSection({ ...end, changes: Array.from({ length: 25 }, (_, i) => `added f${i}.txt`) });
    expect(many).toContain('- added f19.txt\n- … and 5 more');
    expect(many).not.toContain('f20.txt');
  });
});
