// What teamline promises not to touch in the user's checkout, read cheaply: HEAD, the branch checked
// out, every local branch's tip (teamline's own `team/…` aside), and each path `git status` lists
// with its index and working-tree contents; and the differences between two such readings.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { git, linesOf } from './git.js';
import { isTeamPath } from './repo.js';

// A reading of the user's checkout.
export interface CheckoutState {
  head: string;
  /** The branch checked out; '' for a detached HEAD. */
  branch: string;
  branches: Record<string, string>;
  /** Each path `git status` lists: its status line's fields and the working tree's blob, if a file. */
  files: Record<string, string>;
}

// Paths teamline itself writes in the checkout (its checkpoint; `.team/`, should git not ignore it), left out of the reading.
const OWN_FILES = /(^|\/)\.checkpoints\//;
// Working-tree files hashed at most in one reading: beyond, a path is compared by its status alone.
const MAX_HASHED = 500;

// Reads the checkout whose top folder is `top` (a repository's main worktree; paths are relative to it).
export async function readCheckoutState(top: string): Promise<CheckoutState> {
  const head = (await git(top, ['rev-parse', '--verify', '--quiet', 'HEAD'])).stdout;
  const branch = (await git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout;
  const branches: Record<string, string> = {};
  for (const line of linesOf((await git(top, ['for-each-ref', '--format=%(objectname) %(refname:short)', 'refs/heads'])).stdout)) {
    const [commit, name] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
    if (!name.startsWith('team/')) branches[name] = commit;
  }
  const files: Record<string, string> = {};
  const entries = (await git(top, ['status', '--porcelain=v2', '-z', '--untracked-files=all'])).stdout.split('\0');
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i]!;
    const fields = entry.split(' ');
    // `1 XY sub mH mI mW hH hI path`, `2 … path` (then the original path), `u … path`, `? path`.
    const at = { '1': 8, '2': 9, u: 10, '?': 1 }[fields[0]!];
    if (at === undefined) continue;
    const path = fields.slice(at).join(' ');
    if (fields[0] === '2') i += 1;
    if (!OWN_FILES.test(path) && !isTeamPath(path)) files[path] = fields.slice(1, at).join(' ');
  }
  const hashed = Object.keys(files).filter((path) => lstatSync(join(top, path), { throwIfNoEntry: false })?.isFile()).slice(0, MAX_HASHED);
  const blobs = hashed.length === 0 ? [] : (await git(top, ['hash-object', '--stdin-paths'], hashed.map((p) => `${p}\n`).join(''))).stdout.split('\n');
  hashed.forEach((path, n) => {
    if (blobs[n]) files[path] += ` ${blobs[n]}`;
  });
  return { head, branch, branches, files };
}

// What changed from `before` to `after`, in words; empty when nothing did.
export function describeCheckoutChanges(before: CheckoutState, after: CheckoutState): string[] {
  const changes: string[] = [];
  if (before.branch !== after.branch) changes.push(`the checked-out branch went from ${before.branch || 'a detached HEAD'} to ${after.branch || 'a detached HEAD'}`);
  if (before.head !== after.head) changes.push(`HEAD moved from ${before.head.slice(0, 10)} to ${after.head.slice(0, 10)}`);
  for (const name of new Set([...Object.keys(before.branches), ...Object.keys(after.branches)])) {
    const [was, now] = [before.branches[name], after.branches[name]];
    if (was === now) continue;
    changes.push(was === undefined ? `branch ${name} was created at ${now!.slice(0, 10)}` : now === undefined ? `branch ${name} (at ${was.slice(0, 10)}) was deleted` : `branch ${name} moved from ${was.slice(0, 10)} to ${now.slice(0, 10)}`);
  }
  const paths = [...new Set([...Object.keys(before.files), ...Object.keys(after.files)])].filter((p) => before.files[p] !== after.files[p]).sort();
  if (paths.length > 0) changes.push(`files changed: ${paths.slice(0, 10).join(', ')}${paths.length > 10 ? `, … (${paths.length} in all)` : ''}`);
  return changes;
}
