// Git's lock files (`index.lock`, `HEAD.lock`, a ref's `.lock`) that a crash left behind: git
// writes no pid in them, so a lock is stale when no process has it open and no git process
// works in the folder it guards.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

// The lock files directly in a git folder (a worktree's own, or the repository's common one).
export function locksIn(gitDir: string): string[] {
  if (!existsSync(gitDir)) return [];
  return readdirSync(gitDir).filter((name) => name.endsWith('.lock')).map((name) => join(gitDir, name));
}

// The lock files of refs under `refs/heads/<prefix>` of a common git folder whose names start with `start`.
export function refLocks(commonDir: string, prefix: string, start: string): string[] {
  const dir = join(commonDir, 'refs', 'heads', prefix);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.startsWith(start) && name.endsWith('.lock')).map((name) => join(dir, name));
}

// True while some process has `lock` open, or a git process's working folder is in `folder`.
export function lockHeld(lock: string, folder: string): boolean {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (isGitIn(pid, folder) || hasOpen(pid, lock)) return true;
  }
  return false;
}

function isGitIn(pid: string, folder: string): boolean {
  try {
    if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('git')) return false;
    const inside = relative(folder, readlinkSync(`/proc/${pid}/cwd`));
    return !inside.startsWith('..');
  } catch {
    return false;
  }
}

function hasOpen(pid: string, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
