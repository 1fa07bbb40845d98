// A snapshot of the pipeline machine (its state and context) after a known prefix of the log, so that
// a resume replays only the events written after it. The events stay the truth: a snapshot that is
// torn, made by other machine code, or whose prefix no longer matches the event files (one added,
// removed or unreadable among them) is ignored, and the whole log is replayed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { TEMP_PREFIX, writeFileAtomic } from '../../workers/atomic.js';
import type { PipelineContext } from '../../machines/types.js';
import type { RunFiles } from '../checkpoint/read.js';
import type { RunPaths } from '../checkpoint/store.js';

export const MACHINE_SNAPSHOT_FILE = 'machine-snapshot.json';
// A live run saves one after this many new events, or a tenth of its log when longer (and at its end).
export const MACHINE_SNAPSHOT_EVERY = 500;

export interface MachineState {
  value: unknown;
  context: PipelineContext;
}

interface Body extends MachineState {
  /** sha256 of the compiled machine code that made the state: other code means another version. */
  machine: string;
  /** The last event file name the state has seen; `count` names sort up to it, hashed in `names`. */
  through: string;
  count: number;
  names: string;
}

// Saves the machine's state after the events named (in order, all of them seen by the machine).
export function writeMachineSnapshot(paths: RunPaths, state: MachineState, names: string[]): void {
  if (names.length === 0) return;
  const { inPlace: _inPlace, ...context } = state.context;
  const body: Body = { machine: machineCodeHash(), through: names.at(-1)!, count: names.length, names: hashNames(names), value: state.value, context: context as PipelineContext };
  // The body's sha256 on the first line, then the body: a torn or altered file shows, parsed once.
  const text = JSON.stringify(body);
  writeFileAtomic(paths.runDir, MACHINE_SNAPSHOT_FILE, `${sha256(text)}\n${text}`, { fsync: false });
}

// Saves the state after every event file in the folder now: for the one writer of the log, after a step.
export function saveMachineSnapshot(paths: RunPaths, state: MachineState): void {
  writeMachineSnapshot(paths, state, readdirSync(paths.eventsDir).filter((name) => !name.startsWith(TEMP_PREFIX)).sort());
}

// The saved state and how many of `files.events` it has seen, when the snapshot is whole, made by
// this machine code and its prefix is exactly the event files read now, every one of them valid.
export function readMachineSnapshot(paths: RunPaths, files: RunFiles): { state: MachineState; seen: number } | undefined {
  let body: Body;
  try {
    const file = readFileSync(`${paths.runDir}/${MACHINE_SNAPSHOT_FILE}`, 'utf8');
    const newline = file.indexOf('\n');
    const text = file.slice(newline + 1);
    if (newline !== 64 || file.slice(0, newline) !== sha256(text)) return undefined;
    body = JSON.parse(text) as Body;
  } catch {
    return undefined;
  }
  const names = files.eventNames ?? [];
  if (body.machine !== machineCodeHash() || !Number.isInteger(body.count) || body.count < 1 || body.count > names.length) return undefined;
  if (names[body.count - 1] !== body.through || hashNames(names.slice(0, body.count)) !== body.names) return undefined;
  // A file of the prefix that no longer reads as a valid event: the replay of the whole log says what it means.
  if (files.problems.some((p) => p.file.startsWith('events/') && p.file.slice('events/'.length) <= body.through)) return undefined;
  const seen = files.events.findIndex((e) => e.file > body.through);
  return { state: { value: body.value, context: body.context }, seen: seen === -1 ? files.events.length : seen };
}

function hashNames(names: string[]): string {
  return sha256(names.join('\n'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let codeHash: string | undefined;

// The hash of the compiled machines/ folder, read once per process.
function machineCodeHash(): string {
  if (codeHash) return codeHash;
  const dir = new URL('../../machines/', import.meta.url);
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).filter((n) => /\.(js|ts)$/.test(n)).sort()) hash.update(name).update('\0').update(readFileSync(new URL(name, dir)));
  codeHash = hash.digest('hex');
  return codeHash;
}
