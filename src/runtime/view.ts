// Reads and folds a run: the one read path for status, state commands and resume.
import { readRunFiles } from '../checkpoint/read.js';
import type { RunPaths } from '../checkpoint/store.js';
import { foldRun, type RunView } from '../checkpoint/view.js';

// The current view of a run, from its files alone.
export function loadRunView(paths: RunPaths, projectDir: string): RunView {
  return foldRun(readRunFiles(paths), projectDir);
}
