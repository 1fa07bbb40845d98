// The built `team` CLI refuses a bad config, a bad `N:type` or an unknown agent with exit 2, before any run exists.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeSimProject, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

// Expects exit 2, stderr holding every `names`, no stdout, and no run folder in the project.
function expectRefused(project: SimProject, result: TeamResult, ...names: string[]): void {
  expect(result.exitCode, result.stderr).toBe(2);
  for (const name of names) expect(result.stderr).toContain(name);
  expect(result.stdout).toBe('');
  expect(existsSync(join(project.dir, '.team', 'runs'))).toBe(false);
}

describe('pipeline usage', () => {
  it('refuses a config field of the wrong type, naming the field and the file', async () => {
    const project = makeSimProject('e2e-one-task', { team: { maxFixLoops: 'three' } });
    const result = await project.team('3:executor', 'refuse empty names', '--agent', 'sim');
    expectRefused(project, result, 'team.maxFixLoops', join(project.dir, '.team', 'config.json'));
  });

  it('refuses an unknown config key, naming it', async () => {
    const project = makeSimProject('e2e-one-task', { team: { maxFixLoop: 3 } });
    const result = await project.team('3:executor', 'refuse empty names', '--agent', 'sim');
    expectRefused(project, result, 'maxFixLoop', 'config.json');
  });

  it('refuses a bad file given with --config, naming that file', async () => {
    const project = makeSimProject('e2e-one-task');
    const file = project.write('other-config.json', JSON.stringify({ verify: { commands: 'npm test' } }));
    const result = await project.team('3:executor', 'refuse empty names', '--agent', 'sim', '--config', file);
    expectRefused(project, result, file, 'verify.commands');
  });

  it('refuses 0 workers, naming the N', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('0:executor', 'refuse empty names', '--agent', 'sim'), 'N:agent-type', '"0"');
  });

  it('refuses 21 workers, naming the N', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('21:executor', 'refuse empty names', '--agent', 'sim'), 'N:agent-type', '"21"');
  });

  it('refuses an agent type that is neither a role nor an agent, naming it', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('3:nosuchtype', 'refuse empty names', '--agent', 'sim'), '"nosuchtype"');
  });

  it('refuses an unknown --agent, naming it', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'nosuchagent'), '--agent', '"nosuchagent"');
  });

  it('suggests the role or agent a mistyped name was near', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('3:exector', 'refuse empty names', '--agent', 'sim'), '"exector"', '(did you mean "executor"?)');
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'smi'), '--agent', '(did you mean "sim"?)');
  });

  it('refuses a command agent with no command, naming agents.<name>.command', async () => {
    const project = makeSimProject('e2e-one-task', { agents: { mine: { adapter: 'command' } } });
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'mine'), 'agents.mine.command', join(project.dir, '.team', 'config.json'));
  });

  it('refuses a prompts override naming a missing file, naming the stage and the path', async () => {
    const project = makeSimProject('e2e-one-task', { prompts: { 'team-exec': 'prompts/exec.md' } });
    // Relative to the config file, as the runtime resolves it.
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'sim'), 'prompts.team-exec', join(project.dir, '.team', 'prompts', 'exec.md'));
  });

  it('refuses a prompts override naming a folder, naming the stage', async () => {
    const project = makeSimProject('e2e-one-task', { prompts: { 'team-plan': '.' } });
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'sim'), 'prompts.team-plan', 'not a file');
  });

  it('refuses N:agent-type with the task forgotten, saying the task is missing', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('5:executor', '--agent', 'sim'), 'the task is missing', '"5:executor"');
  });

  // Tests run as root, for whom permissions do not stop a write: /proc refuses every new entry,
  // even root's (mkdir answers ENOENT there, on which a recursive mkdir used to spin forever).
  it('refuses a --cwd where nothing can be written, naming --cwd and the reason, with no stack', async () => {
    const project = makeSimProject('e2e-one-task');
    const result = await project.team('3:executor', 'refuse empty names', '--agent', 'sim', '--cwd', '/proc');
    expectRefused(project, result, '--cwd', '/proc', 'ENOENT');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync('/proc/.team')).toBe(false);
  });

  it('refuses a --cwd where the file system forbids writing, naming --cwd and the reason', async () => {
    const project = makeSimProject('e2e-one-task');
    // sysfs answers EPERM to a new folder, for root too.
    const result = await project.team('state', 'start-run', '--profile', 'p', '--stage', 'team-exec', '--cwd', '/sys/kernel');
    expectRefused(project, result, '--cwd', '/sys/kernel', 'EPERM');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a --max-fix-loops that is not a number, naming the flag', async () => {
    const project = makeSimProject('e2e-one-task');
    expectRefused(project, await project.team('3:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', 'three'), '--max-fix-loops', '"three"');
  });
});
