// Where a path really leads, and whether that stays inside a folder (the project, or the user's home
// with `--global`): what the safe reader and writer look at before they open a file that a person
// or an agent could have replaced by a link.
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, isAbsolute } from 'node:path';

// The real path of a file inside the folder, or why there is none: a link (of the file, or of a
// folder on the way) that leads out of it, or a link that leads nowhere.
export type Leading = { ok: true; real: string } | { ok: false; kind: 'outside' | 'dangling'; at: string };

// Resolves `path` (its folders, and its last name when that is a link) and checks that it stays in
// `root`. Folders that do not exist yet are judged by the nearest one that does; a file that does
// not exist yet is where it would be made.
export function leadInside(root: string, path: string): Leading {
  const realRoot = realpathSync(root);
  const folder = resolveFolder(dirname(path));
  if (typeof folder !== 'string') return folder;
  if (!isWithin(realRoot, folder)) return { ok: false, kind: 'outside', at: firstLink(root, dirname(path)) };
  const file = join(folder, basename(path));
  if (!isLink(file)) return { ok: true, real: file };
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return { ok: false, kind: 'dangling', at: path };
  }
  return isWithin(realRoot, real) ? { ok: true, real } : { ok: false, kind: 'outside', at: path };
}

// Whether `path` lies in `folder` (or is it); both real paths.
export function isWithin(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// The real path of `dir`: its nearest existing folder resolved, the rest as given; a link to
// nothing on the way is refused (a folder made through it would be made where it points).
function resolveFolder(dir: string): string | Leading {
  const rest: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(existing) === existing) throw error;
      if (isLink(existing)) return { ok: false, kind: 'dangling', at: existing };
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
}

// The link on the way from `root` down to `dir` that leads out (the first link below root), else `dir`.
function firstLink(root: string, dir: string): string {
  const parts = relative(root, dir).split('/');
  for (let depth = 1; depth <= parts.length; depth++) {
    const at = join(root, ...parts.slice(0, depth));
    if (isLink(at)) return at;
  }
  return dir;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
