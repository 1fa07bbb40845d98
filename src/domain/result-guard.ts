// What an agent hands back is checked like what users hand in: secrets are redacted (the run goes
// on, and the evidence says so) and every field is cut to its bound before anything is recorded.
import { LIMITS, redactSecrets } from '../log/guards.js';

type Path = Array<string | number>;

// Lists cut to LIMITS.items; the plan's task list is bounded by team.maxTasks in the plan check instead.
const BOUNDED_LISTS = new Set(['acceptance', 'defects', 'reasons', 'files', 'commands', 'conventions', 'objections', 'notes', 'risks']);
const ID_FIELDS = new Set(['id', 'task', 'role', 'agent', 'blockedBy']);

// Redacts the secrets in text teamline quotes from what an agent CLI printed (its error text, its
// last output lines, its refused tool calls), as agent text is, with a note at its end saying so.
export function guardCliText(value: string): string {
  const { text, found } = redactSecrets(value);
  if (found.length === 0) return value;
  // Kinds without their examples: a second look at the note finds nothing to redact in it.
  const kinds = [...new Set(found.map((what) => what.replace(/ \(.*\)$/, '')))];
  return withNote(text, `[teamline redacted what looked like secrets in what the agent CLI printed: ${kinds.join(', ')}]`);
}

// The evidence with the guard's note at its end, within the evidence's bound.
export function withNote(evidence: string, note: string): string {
  if (!note) return evidence;
  const room = LIMITS.text - note.length - 1;
  return `${evidence.length > room ? `${evidence.slice(0, room - 1)}…` : evidence} ${note}`.trim();
}

// Redacts and bounds every string of a parsed result in place; returns the note for its evidence
// ('' when nothing was changed).
export function guardAgentText(result: Record<string, unknown>): string {
  const redacted: string[] = [];
  const cut: string[] = [];
  const visit = (value: unknown, path: Path): unknown => {
    // Artifacts are paths, checked (and refused when they look like secrets) by validateProjectPaths.
    if (path.length === 1 && path[0] === 'artifacts') return value;
    if (typeof value === 'string') return guardString(value, path, redacted, cut);
    if (Array.isArray(value)) {
      const bounded = BOUNDED_LISTS.has(String(path.at(-1))) || path.at(-2) === 'acceptance';
      return bound(value, bounded ? LIMITS.items : Infinity, path, cut).map((item, index) => visit(item, [...path, index]));
    }
    if (value !== null && typeof value === 'object') {
      const entries = bound(Object.entries(value), path.at(-1) === 'acceptance' ? LIMITS.prdTasks : Infinity, path, cut);
      // Keys of the PRD's acceptance are task ids an agent chose: bounded and redacted like ids.
      const safeKey = (key: string) => (path.at(-1) === 'acceptance' ? guardString(key, [...path, key], redacted, cut, LIMITS.agentId) : key);
      return Object.fromEntries(entries.map(([key, item]) => [safeKey(key), visit(item, [...path, key])]));
    }
    return value;
  };
  Object.assign(result, visit(result, []));
  return noteOf(redacted, cut);
}

function bound<T>(list: T[], max: number, path: Path, cut: string[]): T[] {
  if (list.length <= max) return list;
  cut.push(`${name(path)} (${list.length} items)`);
  return list.slice(0, max);
}

function guardString(value: string, path: Path, redacted: string[], cut: string[], max = limitOf(path)): string {
  const { text, found } = redactSecrets(value);
  if (found.length > 0) redacted.push(`${name(path)} (${found.join(', ')})`);
  if (text.length <= max) return text;
  cut.push(`${name(path)} (${text.length} characters)`);
  return `${text.slice(0, max - 1)}…`;
}

// The bound of one field, by its name (the last key, or the list it is an item of).
function limitOf(path: Path): number {
  const key = [...path].reverse().find((part) => typeof part === 'string');
  if (typeof path.at(-1) === 'number' && (key === 'acceptance' || path.at(-3) === 'acceptance')) return LIMITS.criterion;
  if (key === 'title') return LIMITS.title;
  if (ID_FIELDS.has(String(key))) return LIMITS.agentId;
  return LIMITS.text;
}

// A field's name for the note: the agent's own keys in it are redacted and shortened too.
function name(path: Path): string {
  const parts = path.map((part) => (typeof part === 'number' ? String(part) : redactSecrets(part).text.slice(0, 40)));
  return parts.join('.') || '(root)';
}

// One short sentence per kind of change, naming at most a few fields.
function noteOf(redacted: string[], cut: string[]): string {
  const parts: string[] = [];
  if (redacted.length > 0) parts.push(`teamline redacted what looked like secrets in ${listed(redacted)}`);
  if (cut.length > 0) parts.push(`teamline cut ${listed(cut)} to their limits`);
  return parts.length > 0 ? `[${parts.join('; ')}]` : '';
}

function listed(fields: string[]): string {
  const shown = fields.slice(0, 4).join(', ');
  return fields.length > 4 ? `${shown} and ${fields.length - 4} more` : shown;
}
