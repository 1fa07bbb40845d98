// Reads and folds a run: the one read path for status, state commands and resume. A snapshot of the
// fold (snapshot.ts) spares reading the events it holds; the events after it are read and folded.
import { readdirSync } from 'node:fs';
import { TEMP_PREFIX } from '../sys/atomic.js';
import { readRunFiles, type RunFiles } from './read.js';
import type { RunPaths } from './write.js';
import { foldEvents, newFold, viewOf, type FoldState, type RunView } from './fold/fold.js';
import { readViewSnapshot, writeViewSnapshot } from './snapshot.js';

// The current view of a run, from its files alone (through its snapshot when one holds).
export function loadRunView(paths: RunPaths, projectDir: string): RunView {
  const { st, files } = foldFromSnapshot(paths);
  return viewOf(st, files, projectDir);
}

// The current fold of a run, from its files alone (through its snapshot when one holds).
export function loadRunFold(paths: RunPaths): FoldState {
  return foldFromSnapshot(paths).st;
}

// Folds the events the snapshot does not hold and saves the snapshot again; returns the view.
export function saveViewSnapshot(paths: RunPaths, projectDir: string): RunView {
  const { st, files } = foldFromSnapshot(paths);
  return saveFold(paths, st, files, projectDir);
}

// Saves a fold of `files` (every event file they list folded) as the run's snapshot; returns the view.
export function saveFold(paths: RunPaths, st: FoldState, files: RunFiles, projectDir: string): RunView {
  // Bad event files now belong to the fold; stray temporary files and approvals are looked at afresh.
  const held = (p: { file: string }) => p.file.startsWith('events/') && !p.file.startsWith(`events/${TEMP_PREFIX}`);
  st.problems.push(...files.problems.filter(held));
  const rest = { ...files, problems: files.problems.filter((p) => !held(p)) };
  writeViewSnapshot(paths, st, files.eventNames ?? []);
  return viewOf(st, rest, projectDir);
}

function foldFromSnapshot(paths: RunPaths): { st: FoldState; files: RunFiles } {
  const snapshot = readViewSnapshot(paths, listEventNames(paths));
  const files = readRunFiles(paths, snapshot ? { after: snapshot.through } : {});
  const st = snapshot?.state ?? newFold(files.run);
  foldEvents(st, files.events);
  return { st, files };
}

// The event file names, in order, temporary files aside (an unreadable folder is reported by the read).
function listEventNames(paths: RunPaths): string[] {
  try {
    return readdirSync(paths.eventsDir).filter((name) => !name.startsWith(TEMP_PREFIX)).sort();
  } catch {
    return [];
  }
}
