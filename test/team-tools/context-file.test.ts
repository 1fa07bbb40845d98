// The team tools' context file (team-tools.json) is written for the attempts of an agent that may
// call the tools, and for no other: a plain command gets neither the file nor a desk looking for its
// calls. A real run in a git repository, two workers, a command agent with and without the tools.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { ROOT } from '../helpers/team.js';
import { AGENT } from '../../bench/pipeline.js';

afterEach(removeProjects);

// A command agent (the bench's tiny sh agent: a plan of 2 tasks, each completed, a passing verify).
function commandAgent(teamTools?: boolean): Record<string, unknown> {
  return { adapter: 'command', command: 'sh', args: [join(ROOT, AGENT)], env: { BENCH_TASKS: '2' }, ...(teamTools !== undefined && { teamTools }) };
}

// Every attempt folder of the project's latest run, with whether it holds the context file.
function contextFiles(dir: string): Record<string, boolean> {
  const runs = join(dir, '.team', 'runs');
  const attempts = join(runs, readFileSync(join(runs, 'current'), 'utf8').trim(), 'attempts');
  const found: Record<string, boolean> = {};
  for (const task of readdirSync(attempts)) {
    for (const attempt of readdirSync(join(attempts, task))) found[`${task}/${attempt}`] = existsSync(join(attempts, task, attempt, 'team-tools.json'));
  }
  return found;
}

describe("the team tools' context file", () => {
  it('is not written for a command agent without the tools, and is for one given them', { timeout: 120_000 }, async () => {
    const project = makeGitProject({}, { agents: { plain: commandAgent(), wired: commandAgent(true) } });

    const plain = await project.run('2:executor', 'two small tasks', '--agent', 'plain');
    expect(plain.exitCode, plain.stderr).toBe(0);
    const without = contextFiles(project.dir);
    expect(Object.keys(without).sort()).toEqual(['plan/a1', 't1/a1', 't2/a1', 'verify-1/a1']);
    expect(Object.values(without)).toEqual([false, false, false, false]);

    const wired = await project.run('2:executor', 'two small tasks', '--agent', 'wired');
    expect(wired.exitCode, wired.stderr).toBe(0);
    const withTools = contextFiles(project.dir);
    expect(Object.keys(withTools).sort()).toEqual(['plan/a1', 't1/a1', 't2/a1', 'verify-1/a1']);
    expect(Object.values(withTools)).toEqual([true, true, true, true]);
  });
});
