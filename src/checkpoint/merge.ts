// The timestamp-only three-way merge of two checkpoint versions (OPCHAIN.md, "Merge driver").
import { isDeepStrictEqual } from 'node:util';
import { isObject } from './validate.js';

// Paths whose changes are telemetry: the newer side's value is taken wholesale.
const TELEMETRY = ['updated_at', 'skill_state.last_run', 'skill_state.run_history', 'skill_state.streak', 'skill_state.bypasses', 'skill_state.carried_debt'];

export type MergeResult = { merged: Record<string, unknown> } | { conflicts: string[] };

// Merges `ours` and `theirs` against `base`; the newer side (larger updated_at, ties: ours) wins telemetry.
export function mergeCheckpoints(base: Record<string, unknown>, ours: Record<string, unknown>, theirs: Record<string, unknown>): MergeResult {
  const newer = stamp(theirs) > stamp(ours) ? 'theirs' : 'ours';
  const conflicts: string[] = [];
  const merged = mergeNode(base, ours, theirs, '', newer, conflicts);
  return conflicts.length ? { conflicts } : { merged: merged as Record<string, unknown> };
}

function mergeNode(base: unknown, ours: unknown, theirs: unknown, path: string, newer: 'ours' | 'theirs', conflicts: string[]): unknown {
  if (isDeepStrictEqual(ours, theirs)) return ours;
  if (TELEMETRY.some((t) => path === t || path.startsWith(`${t}.`))) return newer === 'ours' ? ours : theirs;
  if (isDeepStrictEqual(base, ours)) return theirs;
  if (isDeepStrictEqual(base, theirs)) return ours;
  if (isObject(ours) && isObject(theirs)) {
    const from = isObject(base) ? base : {};
    const out: Record<string, unknown> = {};
    for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs), ...Object.keys(from)])) {
      const value = mergeNode(from[key], ours[key], theirs[key], path ? `${path}.${key}` : key, newer, conflicts);
      // A key resolved to nothing (deleted on one side, untouched on the other) is dropped.
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  conflicts.push(path || '(the whole file)');
  return ours;
}

function stamp(doc: Record<string, unknown>): number {
  const at = typeof doc.updated_at === 'string' ? Date.parse(doc.updated_at) : NaN;
  return Number.isNaN(at) ? -Infinity : at;
}
