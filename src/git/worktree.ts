// Worktrees and commits of a run: each worker's folder on its task's branch, created or adopted.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { git, gitOrThrow, identity, linesOf } from './git.js';
import { mergeInProgress } from './merge.js';
import { commitOf } from './repo.js';
import { nestedRepos, stagePlain } from './nested-repos.js';

export type WorktreeHow = 'created' | 'recreated' | 'adopted' | 'switched';

export interface Worktree {
  path: string;
  /** The branch it has checked out ('' when detached). */
  branch: string;
}

// The worktrees git knows, with the branch each has checked out ('' when detached).
export async function listWorktrees(repoDir: string): Promise<Worktree[]> {
  const out = (await git(repoDir, ['worktree', 'list', '--porcelain'])).stdout;
  return out.split('\n\n').flatMap((block) => {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    if (!path) return [];
    return [{ path: resolve(path), branch: /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? '' }];
  });
}

// The worktree other than `except` that has `branch` checked out, if any (of `listed`, as listed).
export function holderOf(listed: Worktree[], branch: string, except: string): string | undefined {
  return listed.find((w) => w.branch === branch && w.path !== resolve(except))?.path;
}

// Creates `branch` at `from` unless it exists; true when it was created.
export async function ensureBranch(repoDir: string, branch: string, from: string): Promise<boolean> {
  if (await commitOf(repoDir, `refs/heads/${branch}`)) return false;
  await gitOrThrow(repoDir, ['branch', branch, from]);
  return true;
}

// Puts the worktree at `path` on `branch`: adopts a live one, re-creates a missing one, switches a
// worker's folder to its next task. The caller committed the folder's leftovers first. `listed`: the
// worktrees as the caller just listed them (the entry of `path` unchanged since).
export async function ensureWorktree(repoDir: string, path: string, branch: string, known: boolean, listed?: Worktree[]): Promise<WorktreeHow> {
  let worktrees = listed ?? (await listWorktrees(repoDir));
  // A worktree whose folder is gone still holds its branch until pruned (what prune removes).
  if (worktrees.some((w) => !existsSync(w.path))) {
    await git(repoDir, ['worktree', 'prune']);
    worktrees = await listWorktrees(repoDir);
  }
  const here = worktrees.find((w) => w.path === resolve(path));
  if (here && existsSync(path)) {
    if (here.branch === branch) return 'adopted';
    await gitOrThrow(path, ['switch', '--quiet', branch]);
    return 'switched';
  }
  await gitOrThrow(repoDir, ['worktree', 'add', '--quiet', path, branch]);
  return known ? 'recreated' : 'created';
}

// Leaves `path` on a detached HEAD so that its branch can be checked out elsewhere.
export async function detach(path: string): Promise<void> {
  await gitOrThrow(path, ['switch', '--quiet', '--detach']);
}

// Commits everything uncommitted in `path` (finishing a merge in progress); undefined when clean.
// A git repository of its own in a folder is committed as plain files (`nested` names the folders).
export async function commitAll(path: string, message: string): Promise<{ commit: string; files: string[]; nested: string[] } | undefined> {
  const nested = await nestedRepos(path);
  for (const dir of nested) await stagePlain(path, dir);
  await gitOrThrow(path, ['add', '--all']);
  const files = linesOf((await git(path, ['diff', '--cached', '--name-only'])).stdout);
  const merging = await mergeInProgress(path);
  if (files.length === 0 && !merging) return undefined;
  await gitOrThrow(path, [...(await identity(path)), 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', message]);
  return { commit: await gitOrThrow(path, ['rev-parse', 'HEAD']), files, nested };
}

// Moves what an agent left in a folder that must stay clean (the integration worktree) to a stash.
export async function stashAll(path: string, message: string): Promise<string | undefined> {
  const dirty = (await git(path, ['status', '--porcelain'])).stdout;
  if (dirty === '') return undefined;
  await gitOrThrow(path, [...(await identity(path)), 'stash', 'push', '--quiet', '--include-untracked', '-m', message]);
  return gitOrThrow(path, ['rev-parse', 'stash@{0}']);
}
