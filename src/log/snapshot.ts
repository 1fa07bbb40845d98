// A compact snapshot of a run's fold, so that status and the state commands read only the events
// written after it. The events stay the truth: a snapshot that is torn, from another version, or
// whose events no longer match the folder (a file added or removed among them) is ignored and the
// fold starts over from the events.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import type { RunPaths } from './write.js';
import { settleTasks, type FoldState } from './fold/fold.js';

export const SNAPSHOT_FILE = 'view-snapshot.json';
// Changed whenever the fold or its state changes shape: a snapshot of another version is rebuilt.
export const SNAPSHOT_VERSION = 10;

interface SnapshotBody {
  version: number;
  /** The last event file name folded; every file name up to it is in the fold. */
  through: string;
  /** How many event file names sort up to `through`. */
  count: number;
  /** sha256 of those names, one per line: any file added or removed among them shows. */
  names: string;
  /** The fold, its maps and sets as tagged arrays (pack). */
  state: Record<string, unknown>;
}

// Saves the fold of the events named (in order; every one of them folded, valid or not).
export function writeViewSnapshot(paths: RunPaths, st: FoldState, names: string[]): void {
  if (names.length === 0) return;
  settleTasks(st);
  const body: SnapshotBody = { version: SNAPSHOT_VERSION, through: names.at(-1)!, count: names.length, names: hashNames(names), state: pack(st, 2) };
  const text = JSON.stringify(body);
  writeFileAtomic(paths.runDir, SNAPSHOT_FILE, `${JSON.stringify({ sha256: sha256(text), body: text })}\n`, { fsync: false });
}

// The saved fold and the last event name it covers, if the snapshot is whole, of this version and
// still agrees with the event files listed (`names`, in order); otherwise undefined.
export function readViewSnapshot(paths: RunPaths, names: string[]): { state: FoldState; through: string } | undefined {
  let body: SnapshotBody;
  try {
    const outer = JSON.parse(readFileSync(join(paths.runDir, SNAPSHOT_FILE), 'utf8')) as { sha256?: unknown; body?: unknown };
    if (typeof outer.body !== 'string' || outer.sha256 !== sha256(outer.body)) return undefined;
    body = JSON.parse(outer.body) as SnapshotBody;
  } catch {
    return undefined;
  }
  if (body.version !== SNAPSHOT_VERSION || !Number.isInteger(body.count) || body.count < 1 || body.count > names.length) return undefined;
  if (names[body.count - 1] !== body.through || hashNames(names.slice(0, body.count)) !== body.names) return undefined;
  return { state: unpack(body.state, 2) as unknown as FoldState, through: body.through };
}

// The fold's maps and sets, down to `depth` objects deep (its own and its parts'), as tagged arrays, and back.
function pack(value: object, depth: number): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v instanceof Map ? { [MAP]: [...v] } : v instanceof Set ? { [SET]: [...v] } : depth > 1 && isPlainObject(v) ? pack(v, depth - 1) : v]));
}

function unpack(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, !isPlainObject(v) ? v : Array.isArray(v[MAP]) ? new Map(v[MAP]) : Array.isArray(v[SET]) ? new Set(v[SET]) : depth > 1 ? unpack(v, depth - 1) : v]));
}

const [MAP, SET] = ['__map', '__set'];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hashNames(names: string[]): string {
  return sha256(names.join('\n'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
