// A snapshot of the pipeline machine (its state and context) after a known prefix of the log, so that
// a resume replays only the events written after it. The events stay the truth: a snapshot that is
// torn, made by other machine code, or whose prefix no longer matches the event files (one added,
// removed, changed or unreadable among them: the digest of their names and contents) is ignored,
// and the whole log is replayed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEMP_PREFIX, writeFileAtomic } from '../sys/atomic.js';
import type { PipelineContext } from '../../machines/types.js';
import { LogDigest, type LogPosition } from '../log/digest.js';
import { readRunFiles, type RunFiles } from '../log/read.js';
import type { RunPaths } from '../log/write.js';

export const MACHINE_SNAPSHOT_FILE = 'machine-snapshot.json';
// A live run saves one after this many new events, or a twentieth of its log when longer (and at its end).
const EVERY = 500;

// Whether a log of `count` event files, last saved at `savedAt`, is due a snapshot: a resume then
// replays at most about a twentieth of the log, and the saves (each as big as the run) cost O(1) per event.
export function snapshotDue(count: number, savedAt: number): boolean {
  return count - savedAt >= Math.max(EVERY, count / 20);
}

export interface MachineState {
  value: unknown;
  context: PipelineContext;
}

interface Body extends MachineState, LogPosition {
  /** sha256 of the compiled machine code that made the state: other code means another version. */
  machine: string;
}

// Saves the machine's state after the events up to `position` (every one of them seen by the machine).
export function writeMachineSnapshot(paths: RunPaths, state: MachineState, position: LogPosition | undefined): void {
  const text = makeMachineSnapshot(state, position);
  if (text !== undefined) saveMachineSnapshot(paths, text);
}

// The snapshot file's text, taken now (a live machine changes its context in place afterwards).
export function makeMachineSnapshot(state: MachineState, position: LogPosition | undefined): string | undefined {
  if (!position) return undefined;
  const { inPlace: _inPlace, ...context } = state.context;
  const body: Body = { machine: machineCodeHash(), ...position, value: state.value, context: context as PipelineContext };
  // The body's sha256 on the first line, then the body: a torn or altered file shows, parsed once.
  const text = JSON.stringify(body);
  return `${sha256(text)}\n${text}`;
}

// Writes a snapshot made by makeMachineSnapshot (once every event it names is in the log).
export function saveMachineSnapshot(paths: RunPaths, text: string): void {
  writeFileAtomic(paths.runDir, MACHINE_SNAPSHOT_FILE, text, { fsync: false });
}

// The saved snapshot when it is whole and made by this machine code, before its prefix is checked:
// its `through` tells the read of the events where to take the digest (readRunFiles' digestAt).
export function peekMachineSnapshot(paths: RunPaths): Body | undefined {
  try {
    const file = readFileSync(join(paths.runDir, MACHINE_SNAPSHOT_FILE), 'utf8');
    const newline = file.indexOf('\n');
    const text = file.slice(newline + 1);
    if (newline !== 64 || file.slice(0, newline) !== sha256(text)) return undefined;
    const body = JSON.parse(text) as Body;
    return body.machine === machineCodeHash() && typeof body.through === 'string' && Number.isInteger(body.count) ? body : undefined;
  } catch {
    return undefined;
  }
}

// The state of a peeked snapshot and how many of `files.events` it has seen, when the event files
// read now up to its `through` are exactly those it saw (same digest), every one of them valid.
function trustSnapshot(body: Body | undefined, files: RunFiles): { state: MachineState; seen: number } | undefined {
  const at = files.digestAt;
  if (!body || !at || at.through !== body.through || at.count !== body.count || at.digest !== body.digest) return undefined;
  // A file of the prefix that does not read as a valid event: the replay of the whole log says what it
  // means. (A temporary file is a write never finished: not an event, never in the digest.)
  const inPrefix = (name: string) => !name.startsWith(TEMP_PREFIX) && name <= body.through;
  if (files.problems.some((p) => p.file.startsWith('events/') && inPrefix(p.file.slice('events/'.length)))) return undefined;
  const seen = files.events.findIndex((e) => e.file > body.through);
  return { state: { value: body.value, context: body.context }, seen: seen === -1 ? files.events.length : seen };
}

// What a takeover reads to replay a run: every file of the run, their digest as they are read, and
// the machine snapshot when it still agrees with them (otherwise undefined: replay the whole log).
export function readForReplay(paths: RunPaths): { files: RunFiles; digest: LogDigest; snapshot: { state: MachineState; seen: number } | undefined } {
  const peeked = peekMachineSnapshot(paths);
  const digest = new LogDigest();
  const files = readRunFiles(paths, { digest, digestAt: peeked?.through });
  return { files, digest, snapshot: trustSnapshot(peeked, files) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let codeHash: string | undefined;

// The hash of the machines/ folder this code runs from (compiled or source) and of the log's schema
// the machine reads its events with, read once per process.
function machineCodeHash(): string {
  if (codeHash) return codeHash;
  const dir = new URL('../../machines/', import.meta.url);
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).filter((n) => /\.(js|ts)$/.test(n)).sort()) hash.update(name).update('\0').update(readFileSync(new URL(name, dir)));
  const schema = new URL(`../log/schema.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  hash.update('schema').update('\0').update(readFileSync(schema));
  codeHash = hash.digest('hex');
  return codeHash;
}
