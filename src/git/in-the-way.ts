// Files of the user's checkout that a merge would overwrite without a word: paths the incoming
// tree adds that are there untracked, or ignored (git's merge replaces ignored files silently).
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOrThrow, linesOf } from './git.js';

// One path in the way, and whether git ignores it (else it is untracked).
export interface InTheWay {
  path: string;
  ignored: boolean;
}

// What stands in the checkout at `dir` where merging `ref` into HEAD would write: a path the
// ref's tree adds, or a file where it needs a folder. Paths relative to the repository's top.
export async function pathsInTheWay(dir: string, ref: string): Promise<InTheWay[]> {
  const top = await gitOrThrow(dir, ['rev-parse', '--show-toplevel']);
  const added = (await gitOrThrow(top, ['diff', '--name-only', '--no-renames', '--diff-filter=A', '-z', 'HEAD', ref])).split('\0').filter(Boolean);
  const found = new Set<string>();
  for (const path of added) {
    const parts = path.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const at = parts.slice(0, depth).join('/');
      const kind = kindOf(join(top, at));
      if (kind === 'dir' && depth < parts.length) continue;
      if (kind !== undefined) found.add(kind === 'dir' ? `${at}/` : at);
      break;
    }
  }
  const paths = [...found].sort();
  if (paths.length === 0) return [];
  const ignored = new Set(linesOf((await git(top, ['-c', 'core.quotePath=false', 'check-ignore', '--', ...paths.map((p) => p.replace(/\/$/, ''))])).stdout));
  return paths.map((path) => ({ path, ignored: ignored.has(path.replace(/\/$/, '')) }));
}

function kindOf(path: string): 'dir' | 'other' | undefined {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}
