// The user's working tree as a commit: every tracked file and every untracked one git does not
// ignore, as they are on disk, written through a temporary index, so that the user's index, HEAD
// and branches are not touched. Kept under a ref outside refs/heads (no branch of theirs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitOrThrow, identity } from './git.js';

// Makes the commit (parent HEAD) of the working tree of the repository at `top`, leaving out the
// pathspecs in `exclude` (teamline's own folders), and points `ref` at it. Returns the commit.
export async function snapshotWorkingTree(top: string, ref: string, message: string, exclude: string[]): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'teamline-snapshot-'));
  const own = { GIT_INDEX_FILE: join(scratch, 'index') };
  try {
    const read = await git(top, ['read-tree', 'HEAD'], undefined, own);
    if (!read.ok) throw new Error(`git read-tree HEAD: ${read.stderr}`);
    const added = await git(top, ['add', '--all'], undefined, own);
    if (!added.ok) throw new Error(`git add --all: ${added.stderr}`);
    // Left out after the add: a pathspec that names an ignored folder makes `git add` fail.
    const dropped = await git(top, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...exclude], undefined, own);
    if (!dropped.ok) throw new Error(`git rm --cached: ${dropped.stderr}`);
    const tree = (await git(top, ['write-tree'], undefined, own)).stdout;
    const commit = await gitOrThrow(top, [...(await identity(top)), 'commit-tree', tree, '-p', 'HEAD', '-m', message]);
    await gitOrThrow(top, ['update-ref', ref, commit]);
    return commit;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
