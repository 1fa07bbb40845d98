// Runs of a git repository project driven or cancelled from another pid namespace (`unshare --pid
// --fork --mount-proc`, root only), as an agent CLI's sandbox runs its commands.
import { execFileSync } from 'node:child_process';
import { execa, type ResultPromise } from 'execa';
import { makeCancelProject, type CancelProject } from './cancel-run.js';
import { GIT_ENV } from './git-project.js';
import { CLI } from './team.js';

// The two hanging workers of cancel-polite-and-stubborn.json (one ignores SIGINT and SIGTERM).
export const NAMESPACE_TASKS = ['polite', 'stubborn'];
// Whether this machine lets the test make pid namespaces.
export const CAN_UNSHARE = process.getuid?.() === 0 && (await execa('unshare', ['--version'], { reject: false })).exitCode === 0;
// A new pid namespace with its own /proc: pids of this one mean nothing there. It ends (and
// everything in it) when unshare does.
const IN_NAMESPACE = ['--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL'];
const started: ResultPromise[] = [];

// Two hanging workers in a git repository with a commit: worktrees isolate them.
export function makeRepoProject(): CancelProject {
  const project = makeCancelProject({ scenario: 'cancel-polite-and-stubborn.json', graceMs: 1_000, env: GIT_ENV });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project.dir, env: { ...process.env, ...GIT_ENV } });
  git('init', '--quiet', '--initial-branch', 'main');
  project.write('README.md', 'a project\n');
  git('add', 'README.md');
  git('commit', '--quiet', '-m', 'base');
  return project;
}

// `team <args>` in a new pid namespace, in the project.
export function teamInNamespace(project: CancelProject, ...args: string[]): ResultPromise {
  const child = execa('unshare', [...IN_NAMESPACE, process.execPath, CLI, ...args], { cwd: project.dir, env: GIT_ENV, reject: false, stdin: 'ignore' });
  started.push(child);
  return child;
}

// Ends every namespace a test started (and so everything in it).
export function endNamespaces(): void {
  for (const child of started.splice(0)) child.kill('SIGKILL');
}
