// A bare single word never starts a run: it is refused with exit 2, naming the nearest command or `--task WORD`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';

afterAll(removeProjects);

describe('one-word task guard', () => {
  it.each([
    ['stauts', 'status'],
    ['staus', 'status'],
    ['resme', 'resume'],
    ['cancle', 'cancel'],
    ['lsit', 'list'],
    ['wiat', 'wait'],
    ['doctr', 'doctor'],
    ['lnad', 'land'],
  ])('refuses "%s" and suggests `team %s`', async (word, command) => {
    const project = makeProject();
    const result = await project.team(word);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `team: "${word}" is not a command; did you mean \`team ${command}\`?\n` });
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it.each(['run', 'start'])('refuses `team %s "task"`, showing how a run starts', async (word) => {
    const project = makeProject();
    const result = await project.team(word, 'do the thing');
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `team: "${word}" is not a command: a run starts with the task alone, \`team "do the thing"\` (\`team --help\` lists the commands)\n` });
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it.each(['deploy', 'frobnicate', 'refactor'])('refuses "%s" with the hint that a task is a sentence and --task runs one word', async (word) => {
    const project = makeProject();
    const result = await project.team(word);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`team: "${word}" is not a command, and a task is a sentence (quote it: team "add input validation to the API"); \`--task ${word}\` runs a one-word task\n`);
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('refuses a one-word task after N:agent-type and in team ralph', async () => {
    const project = makeProject();
    const team = await project.team('3:executor', 'refactor');
    expect(team.exitCode).toBe(2);
    expect(team.stderr).toContain('`--task refactor` runs a one-word task');
    const ralph = await project.team('ralph', 'stauts');
    expect(ralph).toMatchObject({ exitCode: 2, stderr: 'team ralph: "stauts" is not a command; did you mean `team status`?\n' });
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('refuses --task together with a task argument, naming both', async () => {
    const project = makeProject();
    const result = await project.team('--task', 'refactor', 'add input validation');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team: --task and a task argument ("add input validation") exclude each other\n');
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('runs a one-word task given with --task', async () => {
    const project = makeSimProject('e2e-one-task');
    const result = await project.team('1:executor', '--task', 'refactor', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    expect(JSON.parse(readFileSync(run.paths.runJson, 'utf8'))).toMatchObject({ task: 'refactor', workers: 1 });
  });
});

describe('team --version', () => {
  it('prints the package version', async () => {
    const project = makeProject();
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(await project.team('--version')).toEqual({ exitCode: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});
