// A worktree's HEAD log (its reflog): the commits HEAD pointed to, also those no branch holds any
// more (made on a detached HEAD, or on a branch since deleted).
import { git, linesOf } from './git.js';

// The commits the HEAD log of the worktree at `path` records from `sinceSeconds` (Unix time) on, newest first.
export async function headLogSince(path: string, sinceSeconds: number): Promise<string[]> {
  const out = (await git(path, ['log', '-g', '--format=%H %gd', '--date=unix', 'HEAD'])).stdout;
  const found: string[] = [];
  for (const line of linesOf(out)) {
    const [commit, selector] = line.split(' ');
    const at = Number(/@\{(\d+)\}$/.exec(selector ?? '')?.[1]);
    if (!Number.isFinite(at) || at < sinceSeconds) break;
    if (!found.includes(commit!)) found.push(commit!);
  }
  return found;
}

// Every commit a ref's own log records (what the branch pointed to at some time).
export async function refLog(dir: string, ref: string): Promise<Set<string>> {
  return new Set(linesOf((await git(dir, ['reflog', 'show', '--format=%H', ref])).stdout));
}

// How many commits HEAD and the HEAD log of the worktree at `path` hold that no branch holds.
export async function commitsOnNoBranch(path: string, withLog: boolean): Promise<number> {
  const tips = withLog ? [...new Set(linesOf((await git(path, ['log', '-g', '--format=%H', 'HEAD'])).stdout))] : [];
  const counted = await git(path, ['rev-list', '--count', 'HEAD', ...tips, '--not', '--branches']);
  return counted.ok ? Number(counted.stdout) : 0;
}
