// What a project folder is to git: a repository with a commit, or why it is not.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { git } from './git.js';

// Where a project sits in its repository.
export type RepoProbe =
  | { kind: 'git'; top: string; prefix: string; head: string; branch: string }
  | { kind: 'none'; reason: string };

// Probes `dir`: inside a git work tree with at least one commit, or not (and why).
export async function probeRepo(dir: string): Promise<RepoProbe> {
  if (!mayBeInRepo(dir)) return { kind: 'none', reason: `${dir} is not in a git repository` };
  const top = await git(dir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return { kind: 'none', reason: `${dir} is not in a git repository` };
  const head = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head.ok) return { kind: 'none', reason: `the git repository at ${top.stdout} has no commit yet` };
  const prefix = await git(dir, ['rev-parse', '--show-prefix']);
  const branch = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return { kind: 'git', top: top.stdout, prefix: prefix.stdout.replace(/\/$/, ''), head: head.stdout, branch: branch.ok ? branch.stdout : '' };
}

// False when git would find no repository for `dir` (no `.git` in it or above, no GIT_DIR): a look
// at the disk, where asking git costs a process.
export function mayBeInRepo(dir: string): boolean {
  return process.env.GIT_DIR !== undefined || hasGitAbove(resolve(dir));
}

function hasGitAbove(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}

// True when commit `a` is contained in `b` (an ancestor of it, or the same).
export async function isAncestor(dir: string, a: string, b: string): Promise<boolean> {
  return (await git(dir, ['merge-base', '--is-ancestor', a, b])).ok;
}

// The commit a ref names, or undefined when it does not exist.
export async function commitOf(dir: string, ref: string): Promise<string | undefined> {
  const result = await git(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return result.ok ? result.stdout : undefined;
}

// Paths with uncommitted changes: staged or unstaged, and (unless told otherwise) untracked; ignored files aside.
export async function dirtyPaths(dir: string, untracked = true): Promise<string[]> {
  const result = await git(dir, ['status', '--porcelain', `--untracked-files=${untracked ? 'all' : 'no'}`]);
  // Porcelain lines are `XY path`: the status columns may be blank, so lines are not trimmed.
  return result.stdout.split('\n').filter((line) => line.length > 3).map((line) => line.slice(3));
}

// True when a path a branch commits belongs to teamline (`.team/` at any depth).
export function isTeamPath(path: string): boolean {
  return path === '.team' || path.startsWith('.team/') || path.includes('/.team/');
}
