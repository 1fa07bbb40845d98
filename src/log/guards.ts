// Guards on everything a user or an agent hands to the log: ids, paths, secrets, lengths.
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../sys/errors.js';

// Ids name files and folders: no separators, no leading dot, bounded length.
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

// Length limits, documented in the README.
export const LIMITS = {
  /** evidence, next, reason, note, summary; an agent's description, defect or review reason */
  text: 4_000,
  /** the task of a run */
  task: 20_000,
  path: 1_024,
  /** artifacts or inputs of one event */
  paths: 64,
  by: 128,
  /** a plan task's title */
  title: 200,
  /** an id an agent hands back (task, blockedBy, role, defect): longer is invalid anyway (ids stop at 128) */
  agentId: 200,
  /** one acceptance criterion */
  criterion: 500,
  /** acceptance criteria of one task, defects of one verify, reasons of one review */
  items: 50,
  /** tasks named in a PRD's acceptance */
  prdTasks: 1_000,
  /** an agent's result file, read whole: room for a plan whose long fields are then cut */
  resultBytes: 16 * 1024 * 1024,
  /** one event or approval file; the guards keep ours far below it */
  eventBytes: 16 * 1024 * 1024,
} as const;

// Text that looks like a credential; such text never enters the log.
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{16,}/g, 'an API key (sk-...)'],
  [/\b[sr]k_live_[A-Za-z0-9]{10,}/g, 'a Stripe secret key (sk_live_...)'],
  [/\bgithub_pat_[A-Za-z0-9_]{22,}/g, 'a GitHub token (github_pat_...)'],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, 'a GitHub token (ghp_...)'],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, 'an AWS access key (AKIA...)'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/g, 'a private key block'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, 'a Slack token (xox...)'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, 'a JSON web token (eyJ...)'],
  [/\b(password|passwd|pwd|secret|api[_-]?key|token)\s*[=:]\s*\S+/gi, 'a password or secret assignment (password=...)'],
];

// Any of them, case aside: one scan that clears most text at once (a plan of 200 tasks has a
// thousand strings, and nine replace passes over each cost its judgement about 8 ms).
const ANY_SECRET = new RegExp(SECRET_PATTERNS.map(([pattern]) => `(?:${pattern.source})`).join('|'), 'i');

// What replaces a secret in an agent's text.
export const REDACTED = '[redacted]';

// The text with every secret replaced by REDACTED, and what kinds were found (empty when none).
export function redactSecrets(value: string): { text: string; found: string[] } {
  if (!ANY_SECRET.test(value)) return { text: value, found: [] };
  const found: string[] = [];
  let text = value;
  for (const [pattern, what] of SECRET_PATTERNS) {
    const replaced = text.replace(pattern, REDACTED);
    if (replaced !== text) found.push(what);
    text = replaced;
  }
  return { text, found };
}

// Refuses an id that could not safely name a file.
export function validateId(value: string, argument: string): string {
  if (!ID_PATTERN.test(value)) {
    throw new UsageError(`${argument}: "${truncate(value)}" is not a valid id (letters, digits, . _ -, starting with a letter or digit, at most 128)`);
  }
  return value;
}

// Refuses text that is too long or looks like a secret.
export function validateText(value: string, argument: string, max: number = LIMITS.text): string {
  if (value.length > max) throw new UsageError(`${argument}: ${value.length} characters, over the limit of ${max}`);
  for (const [pattern, what] of SECRET_PATTERNS) {
    if (value.search(pattern) !== -1) throw new UsageError(`${argument}: refused, it looks like ${what}; secrets never enter the log`);
  }
  return value;
}

// Resolves a path inside the project, refusing `..` escapes, outside absolute paths and symlink escapes.
// Returns the path relative to the project, with forward slashes.
export function validateProjectPath(projectDir: string, value: string, argument: string): string {
  validateText(value, argument, LIMITS.path);
  if (value.includes('\0')) throw new UsageError(`${argument}: "${truncate(value)}" holds a NUL byte`);
  const root = realpathSync(projectDir);
  const absolute = resolve(root, value);
  if (!isInside(root, absolute)) {
    throw new UsageError(`${argument}: "${truncate(value)}" is outside the project ${root}`);
  }
  const real = realpathOfNearest(absolute);
  if (real === undefined) {
    throw new UsageError(`${argument}: "${truncate(value)}" goes through a broken symbolic link`);
  }
  if (!isInside(root, real)) {
    throw new UsageError(`${argument}: "${truncate(value)}" leads outside the project through a symbolic link (to ${real})`);
  }
  return relative(root, absolute).split(sep).join('/') || '.';
}

// Checks a list of paths, bounded in number.
export function validateProjectPaths(projectDir: string, values: string[], argument: string): string[] {
  if (values.length > LIMITS.paths) throw new UsageError(`${argument}: ${values.length} paths, over the limit of ${LIMITS.paths}`);
  return values.map((value) => validateProjectPath(projectDir, value, argument));
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// The real path of the deepest part of `path` that exists, with the rest appended;
// undefined for a broken link, whose target is unknown ground.
function realpathOfNearest(path: string): string | undefined {
  let existing = path;
  while (!existsSync(existing)) {
    if (isLink(existing)) return undefined;
    const parent = dirname(existing);
    if (parent === existing) return path;
    existing = parent;
  }
  return resolve(realpathSync(existing), relative(existing, path));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}
