// Merges a task's branch into the integration branch, in its worktree: merged, or why not.
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { git, gitOrThrow, identity, linesOf } from './git.js';
import { commitOf, isTeamPath } from './repo.js';

export type MergeOutcome =
  | { kind: 'merged'; commit: string; changed: string[] }
  | { kind: 'conflict'; files: string[]; ours: string; theirs: string }
  | { kind: 'runtime-files'; files: string[]; ours: string; theirs: string };

// True while `path` holds a merge that was started and not concluded. A run asks it several times
// an attempt: at a worktree's top, no MERGE_HEAD in its own git folder is a no without starting git
// (a quarter of a run's git calls); a MERGE_HEAD there, or another folder, is git's to judge.
export async function mergeInProgress(path: string): Promise<boolean> {
  const gitDir = ownGitDir(path);
  if (gitDir !== undefined && !existsSync(join(gitDir, 'MERGE_HEAD'))) return false;
  return (await commitOf(path, 'MERGE_HEAD')) !== undefined;
}

// The git folder of the worktree whose top is `path`: its `.git` folder, or the one its `.git` file
// names (a linked worktree's); undefined when `path` is not a worktree's top.
function ownGitDir(path: string): string | undefined {
  const dotGit = join(path, '.git');
  const stat = lstatSync(dotGit, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return dotGit;
  if (!stat?.isFile()) return undefined;
  const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  return named ? resolve(path, named) : undefined;
}

// Abandons a merge in progress: the worktree is back at its branch's last commit.
export async function abortMerge(path: string): Promise<void> {
  await gitOrThrow(path, ['merge', '--abort']);
}

// The files `branch` changed since it left the worktree's HEAD.
async function changedIn(path: string, branch: string): Promise<string[]> {
  return linesOf(await gitOrThrow(path, ['diff', '--name-only', '--no-renames', `HEAD...${branch}`]));
}

// Files of `branch` since it left the worktree's HEAD that are teamline's own (`.team/`).
export async function runtimeFilesIn(path: string, branch: string): Promise<string[]> {
  return (await changedIn(path, branch)).filter(isTeamPath);
}

// Merges `branch` into the worktree's branch with a merge commit. A conflict is aborted: both
// sides stay as they were, and the outcome names the files.
export async function mergeBranch(path: string, branch: string, message: string): Promise<MergeOutcome> {
  const ours = await gitOrThrow(path, ['rev-parse', 'HEAD']);
  const theirs = await gitOrThrow(path, ['rev-parse', branch]);
  const changed = await changedIn(path, branch);
  const teamFiles = changed.filter(isTeamPath);
  if (teamFiles.length > 0) return { kind: 'runtime-files', files: teamFiles, ours, theirs };
  const merged = await git(path, [...(await identity(path)), 'merge', '--no-ff', '--no-verify', '-m', message, branch]);
  if (merged.ok) return { kind: 'merged', commit: await mergeMade(path, ours, theirs), changed };
  const files = linesOf((await git(path, ['diff', '--name-only', '--diff-filter=U'])).stdout);
  if (await mergeInProgress(path)) await abortMerge(path);
  if (files.length === 0) throw new Error(`git merge ${branch} in ${path} failed without a conflict: ${merged.stderr || merged.stdout}`);
  return { kind: 'conflict', files, ours, theirs };
}

// The merge commit `git merge` just made: HEAD, or (when something moved or deleted the branch in
// between) the last entry of the worktree's own HEAD log, read as a file: git reads no log of a
// HEAD whose branch is gone.
async function mergeMade(path: string, ours: string, theirs: string): Promise<string> {
  const log = join((await gitOrThrow(path, ['rev-parse', '--absolute-git-dir'])), 'logs', 'HEAD');
  const logged = existsSync(log) ? readFileSync(log, 'utf8').trimEnd().split('\n').pop()?.split(' ')[1] : undefined;
  for (const ref of ['HEAD', ...(logged ? [logged] : [])]) {
    const line = (await git(path, ['rev-list', '--parents', '-n', '1', ref])).stdout.split(' ');
    if (line.length === 3 && line[1] === ours && line[2] === theirs) return line[0]!;
  }
  throw new Error(`git merge in ${path} reported success, yet neither HEAD nor its log holds a merge of ${ours} and ${theirs}`);
}

// Starts merging `branch` into the worktree and leaves the conflicts in its files for an agent.
export async function startConflictedMerge(path: string, branch: string): Promise<string[]> {
  const merged = await git(path, ['merge', '--no-ff', '--no-commit', '--no-verify', branch]);
  if (merged.ok) return [];
  return linesOf((await git(path, ['diff', '--name-only', '--diff-filter=U'])).stdout);
}

// Conflicted files that still hold conflict markers.
export async function filesWithMarkers(path: string, files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const found = await git(path, ['grep', '-l', '--no-index', '-e', '^<<<<<<< ', '-e', '^>>>>>>> ', '--', ...files]);
  return linesOf(found.stdout);
}
