// Runs of a git repository project driven or cancelled from another pid namespace (`unshare --pid
// --fork --mount-proc`, root only), as an agent CLI's sandbox runs its commands.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

// `team <args>` in a new pid namespace, in the project; `wrapper` runs it (default: it is pid 1).
export function teamInNamespace(project: CancelProject, ...rest: [{ wrapper?: string[]; env?: Record<string, string>; readOnly?: string }, ...string[]] | string[]): ResultPromise {
  const [first, ...others] = rest;
  const options = typeof first === 'object' ? first : {};
  const args = typeof first === 'object' ? (others as string[]) : (rest as string[]);
  // With readOnly, that path of the project is mounted read-only first (an agent CLI's sandbox).
  const readOnly = options.readOnly === undefined ? [] : ['sh', '-c', 'mount --bind -o ro "$1" "$1" && shift && exec "$@"', 'sh', join(project.dir, options.readOnly)];
  const child = execa('unshare', [...IN_NAMESPACE, ...(readOnly.length ? ['--mount'] : []), ...readOnly, ...(options.wrapper ?? []), process.execPath, CLI, ...args], { cwd: project.dir, env: { ...GIT_ENV, ...options.env }, reject: false, stdin: 'ignore' });
  started.push(child);
  return child;
}

// A pid namespace kept alive by a sleeping pid 1 (a container's main process); its pid here.
export async function namespaceHolder(): Promise<{ pid: number }> {
  const child = execa('unshare', [...IN_NAMESPACE, 'sleep', '600'], { reject: false, stdin: 'ignore' });
  started.push(child);
  // The sleep, once unshare has forked it: the process whose parent is unshare.
  for (let look = 0; look < 200; look++) {
    const sleeper = childOf(child.pid!);
    if (sleeper !== undefined) return { pid: sleeper };
    await sleep(25);
  }
  throw new Error('the namespace did not start');
}

function childOf(parent: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(' ')[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

// Ends every namespace a test started (and so everything in it).
export function endNamespaces(): void {
  for (const child of started.splice(0)) child.kill('SIGKILL');
}

// `team <args>` in the project where `path` (of the project) is a read-only bind mount, as a
// sandbox keeps it; the mount exists only in that command's mount namespace.
export function teamWithReadOnly(project: CancelProject, path: string, ...args: string[]): ResultPromise {
  const script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';
  const child = execa('unshare', ['--mount', 'sh', '-c', script, 'sh', join(project.dir, path), process.execPath, CLI, ...args], { cwd: project.dir, env: GIT_ENV, reject: false, stdin: 'ignore' });
  started.push(child);
  return child;
}
