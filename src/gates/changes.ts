// Reads what a run changed before verify, for the machine's choice of reviewers: how many files
// changed since the run began, and which of them look security-sensitive (routing.security).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, linesOf } from '../git/git.js';
import { mayBeInRepo } from '../git/repo.js';
import { verifyDir } from '../isolation/integration.js';
import type { GateParts } from './gates.js';

// At most this much of the diff and of each new file is searched for the content patterns.
const CONTENT_LIMIT = 2_000_000;
// Reasons kept in the log: enough to say why, never a list of the whole change.
const REASONS_KEPT = 10;

export interface ChangeScan {
  files: number;
  security: string[];
}

// Scans the run's changes in the folder verify reads and records them (changes_scanned).
export async function scanChanges(parts: GateParts, iteration: number, pass: number): Promise<void> {
  const cwd = await verifyDir(parts);
  const base = parts.isolation.active ? parts.isolation.record?.base : undefined;
  const scan = await readChanges(cwd, base ?? 'HEAD', parts.config.routing.security);
  parts.events.commit({ event: 'changes_scanned', iteration, pass, files: scan.files, security: scan.security });
}

// The changed files since `base` (committed, uncommitted and untracked alike) and the security
// reasons; none where git knows of no repository. The three looks are made at once.
export async function readChanges(cwd: string, base: string, patterns: { paths: string[]; content: string[] }): Promise<ChangeScan> {
  if (!mayBeInRepo(cwd)) return { files: 0, security: [] };
  const [diffed, listed, diff] = await Promise.all([git(cwd, ['diff', '--name-only', base, '--']), git(cwd, ['ls-files', '--others', '--exclude-standard']), git(cwd, ['diff', '-U0', base, '--'])]);
  if (!diffed.ok) return { files: 0, security: [] };
  const untracked = linesOf(listed.stdout);
  const files = [...new Set([...linesOf(diffed.stdout), ...untracked])].filter((f) => !f.startsWith('.team/'));
  const reasons = new Set<string>();
  for (const path of files) {
    const hit = matchPath(path, patterns.paths);
    if (hit) reasons.add(`${hit} changed`);
  }
  const added = addedText(cwd, diff.stdout, untracked);
  for (const [path, text] of added) {
    const hit = patterns.content.find((p) => new RegExp(p, 'im').test(text));
    if (hit) reasons.add(`${path} matches /${hit}/`);
  }
  return { files: files.length, security: [...reasons].slice(0, REASONS_KEPT) };
}

// The part of `path` a path pattern matched, through its folder ("src/auth/"), or undefined.
function matchPath(path: string, patterns: string[]): string | undefined {
  for (const pattern of patterns) {
    const match = new RegExp(pattern, 'i').exec(path);
    if (!match) continue;
    const end = path.indexOf('/', match.index + Math.max(match[0].length - 1, 0));
    return end === -1 ? path : path.slice(0, end + 1);
  }
  return undefined;
}

// The lines each file gained, by path: from the diff, and new files whole (within the limit).
function addedText(cwd: string, diff: string, untracked: string[]): Map<string, string> {
  const added = new Map<string, string>();
  let current: string | undefined;
  for (const line of diff.slice(0, CONTENT_LIMIT).split('\n')) {
    if (line.startsWith('+++ ')) current = line.startsWith('+++ b/') ? line.slice(6) : undefined;
    else if (current && line.startsWith('+')) added.set(current, `${added.get(current) ?? ''}${line.slice(1)}\n`);
  }
  for (const path of untracked) {
    try {
      added.set(path, readFileSync(join(cwd, path), 'utf8').slice(0, CONTENT_LIMIT));
    } catch {
      // Gone or unreadable since it was listed: nothing to search.
    }
  }
  return added;
}
