// The real runs the report's story is checked on, in git projects with 3 workers: the demo (the sim's
// built-in scenario: one failed verify, one fix loop), a run whose orchestrator is killed with SIGKILL
// and then resumed, and a run cancelled while it works.
import { join } from 'node:path';
import { execa } from 'execa';
import { STUB_BIN } from '../../helpers/agent-project.js';
import { GIT_ENV, makeGitProject, type GitProject } from '../../helpers/git-project.js';
import { allRoles } from '../../helpers/sim-project.js';
import { CLI, runTeam, type TeamResult } from '../../helpers/team.js';

export const DEMO_TASK = 'demo: add input validation to the API';

// A git project whose `sim` agent plays the built-in demo scenario (no scenario file named).
export function makeDemoProject(config: Record<string, unknown> = {}): GitProject {
  return makeGitProject({}, { ...config, agents: { sim: { adapter: 'sim' } } });
}

// The README's demo, as a user runs it.
export async function runDemo(project: GitProject): Promise<TeamResult> {
  return project.run('3:executor', DEMO_TASK, '--agent', 'sim');
}

// A run started in the background; `kill()` sends SIGKILL to that one process.
export interface Orchestrator {
  exited: Promise<unknown>;
  kill(): void;
}

// `team <args>` in the project, left running, with the claude stub on PATH.
export function startTeam(project: GitProject, env: Record<string, string>, ...args: string[]): Orchestrator {
  const child = execa('node', [CLI, ...args], { cwd: project.dir, env: { ...GIT_ENV, ...env }, reject: false, stdin: 'ignore' });
  return { exited: child, kill: () => child.kill('SIGKILL') };
}

// `team <args>` run to its end with the same environment.
export function team(project: GitProject, env: Record<string, string>, ...args: string[]): Promise<TeamResult> {
  return runTeam(args, { cwd: project.dir, env: { ...GIT_ENV, ...env } });
}

// The environment of the restart run: the claude stub (it reports cost and tokens) on PATH.
export const STUB_ENV = { PATH: `${STUB_BIN}:${process.env.PATH ?? ''}` };

// A demo project for the restart run: the analyst on the claude stub, every other role on the sim;
// a gate that fails on its first run (exit 3) and passes after. Its mark is kept outside the folder
// it runs in, in a folder the fence is told to leave writable (team.fenceWritable).
export function makeRestartProject(): GitProject {
  const project = makeDemoProject();
  const marks = join(project.dir, '.team', 'gate-marks');
  project.write('.team/gate-marks/.keep', '');
  const mark = join(marks, 'gate-ran');
  const gates = ['git --version', `sh -c "test -e ${mark} || { touch ${mark}; exit 3; }"`];
  project.write('.team/config.json', JSON.stringify({ team: { fenceWritable: [marks] }, agents: { sim: { adapter: 'sim' } }, roles: allRoles('sim', { analyst: 'claude' }), verify: { commands: gates } }));
  return project;
}

