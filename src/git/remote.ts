// A run's branches on a git remote (PostgreSQL store): the writer pushes the integration branch and
// fetches each task's branch; a team worker fetches the base, works on the task's branch and pushes it.
import { git, type GitResult } from './git.js';

// Pushes the local `branch` to `remote` (a fast-forward, or a new branch there).
export function pushBranch(dir: string, remote: string, branch: string): Promise<GitResult> {
  return git(dir, ['push', '--quiet', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
}

// Fetches `branch` of `remote` into the local branch of the same name, whatever it held.
export function fetchIntoBranch(dir: string, remote: string, branch: string): Promise<GitResult> {
  return git(dir, ['fetch', '--quiet', remote, `+refs/heads/${branch}:refs/heads/${branch}`]);
}

// Fetches `branch` of `remote` as its remote-tracking ref; returns that ref, or undefined when the
// remote has no such branch (or cannot be reached: `result` says which).
export async function fetchTracking(dir: string, remote: string, branch: string): Promise<{ ref?: string; result: GitResult }> {
  const ref = `refs/remotes/${remote}/${branch}`;
  const result = await git(dir, ['fetch', '--quiet', remote, `+refs/heads/${branch}:${ref}`]);
  return result.ok ? { ref, result } : { result };
}

// Whether `remote` is one of the repository's remotes.
export async function hasRemote(dir: string, remote: string): Promise<boolean> {
  const remotes = await git(dir, ['remote']);
  return remotes.ok && remotes.stdout.split('\n').includes(remote);
}

// Asks the remote for its branches: whether it answers (and lets this clone read it) at all.
export function reachRemote(dir: string, remote: string): Promise<GitResult> {
  return git(dir, ['ls-remote', '--heads', '--quiet', remote]);
}
