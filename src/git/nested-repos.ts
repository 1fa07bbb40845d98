// Git repositories inside a worktree that the project does not know (an agent's `git init` in a
// folder, or a `.git` file): `git add` would commit each as a gitlink to a commit of that other
// repository, which exists nowhere else. Their files are staged as plain files instead.
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOrThrow } from './git.js';

const GITLINK = '160000';

// The folders (relative, ending in `/`) of the worktree at `path` that are git repositories of their
// own and not tracked: `git ls-files --others` names such a folder instead of its files.
export async function nestedRepos(path: string): Promise<string[]> {
  const out = (await git(path, ['ls-files', '-z', '--others', '--exclude-standard'])).stdout;
  return out.split('\0').filter((entry) => entry.endsWith('/'));
}

// Stages the files of the repository in folder `dir` (relative to the worktree at `path`) as plain
// files: those it tracks and those it would track (its ignore rules and the project's apply).
export async function stagePlain(path: string, dir: string): Promise<void> {
  const inner = (await git(join(path, dir), ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])).stdout.split('\0').filter(Boolean);
  const deeper = inner.filter((p) => p.endsWith('/'));
  const listed = inner.filter((p) => !p.endsWith('/')).map((p) => `${dir}${p}`);
  const ignored = new Set((await git(path, ['check-ignore', '-z', '--no-index', '--stdin'], listed.join('\0'))).stdout.split('\0'));
  const entries: string[] = [];
  const files: Array<{ file: string; mode: string }> = [];
  for (const file of listed.filter((p) => !ignored.has(p))) {
    const stat = lstatSync(join(path, file), { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) entries.push(`120000 ${await gitOrThrow(path, ['hash-object', '-w', '--stdin'], readlinkSync(join(path, file)))}\t${file}`);
    else if (stat?.isFile() && !file.includes('\n')) files.push({ file, mode: stat.mode & 0o100 ? '100755' : '100644' });
  }
  // One git for every file: --stdin-paths reads a path a line.
  const blobs = files.length === 0 ? [] : (await gitOrThrow(path, ['hash-object', '-w', '--stdin-paths'], files.map((f) => `${f.file}\n`).join(''))).split('\n');
  files.forEach((f, i) => entries.push(`${f.mode} ${blobs[i]}\t${f.file}`));
  if (entries.length > 0) await gitOrThrow(path, ['update-index', '-z', '--add', '--index-info'], entries.map((e) => `${e}\0`).join(''));
  for (const folder of deeper) await stagePlain(path, `${dir}${folder}`);
}

// The gitlinks the commits from `base` to `tip` add where `base` had none (paths, relative, ending
// in `/`): a submodule the project has, moved to another commit, is the project's own.
export async function gitlinksAdded(path: string, base: string, tip: string): Promise<string[]> {
  const out = (await git(path, ['diff', '--raw', '-z', '--no-renames', '--diff-filter=AMT', base, tip])).stdout.split('\0');
  const found: string[] = [];
  for (let i = 0; i + 1 < out.length; i += 2) {
    const [from, to] = out[i]!.replace(/^:/, '').split(' ');
    if (to === GITLINK && from !== GITLINK) found.push(`${out[i + 1]}/`);
  }
  return found;
}
