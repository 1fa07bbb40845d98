// What the live view shows, from a run's log (files or PostgreSQL) and the tail of each worker's output.log.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { readRunFiles, type RunFiles } from '../checkpoint/read.js';
import type { RunPaths } from '../checkpoint/store.js';
import { foldRun, type RunView } from '../checkpoint/view.js';
import { attentionLines } from '../commands/render-status.js';
import { liveHolder } from '../runtime/lock.js';
import { openRegularFile } from '../../workers/regular-file.js';

export interface Lane {
  worker: string;
  task: string;
  attempt: number;
  stage: string;
  status: string;
  elapsedMs: number;
  lastLine: string;
}

export interface WatchModel {
  runId: string;
  mode: string;
  task: string;
  status: string;
  stage: string;
  iteration: number;
  maxIterations?: number;
  loop: number;
  maxFixLoops?: number;
  costUsd: number;
  tokens: { input: number; output: number };
  elapsedMs: number;
  lanes: Lane[];
  attention: string[];
  outcome?: string;
  ended: boolean;
}

const ENDED = new Set(['completed', 'failed', 'cancelled', 'stopped']);
// Only the end of output.log is read: a chatty worker's megabytes are never loaded.
const TAIL_BYTES = 4096;

// What the live view reads of a run, from either store: the fold's input, whether a writer drives
// the run, what to say when none does, and the last line of an attempt's output (empty when not kept).
export interface WatchRead {
  read: Pick<RunFiles, 'run' | 'events' | 'approvals' | 'problems'>;
  projectDir: string;
  /** Whether a writer drives the run; asked only while it has not ended. */
  live(): boolean;
  undriven: string;
  tail(task: string, attempt: number): string;
}

// The model of the run at `paths`, now, from its files.
export function loadWatchModel(paths: RunPaths, now = Date.now()): WatchModel {
  const read = readRunFiles(paths);
  return modelOf(
    {
      read,
      projectDir: paths.projectDir,
      live: () => liveHolder(paths) !== undefined,
      undriven: `\`team resume --run ${read.run.run_id}\` continues it`,
      tail: (task, attempt) => lastLine(join(paths.attemptsDir, task, `a${attempt}`, 'output.log')),
    },
    now,
  );
}

// The model of a run read from either store; an ended run's clock stops at its last event.
export function modelOf(source: WatchRead, now = Date.now()): WatchModel {
  const view = foldRun(source.read, source.projectDir);
  const last = source.read.events.at(-1);
  const ended = ENDED.has(view.status);
  const at = ended && last ? Date.parse(last.at) : now;
  // A live orchestrator watches its own running attempts: they are not uncertain.
  const live = !ended && source.live();
  const model = toWatchModel(view, source.tail, at, live);
  return model;
}

// Builds the model from a folded view; each worker's lane holds its latest attempt, `tail` its last output line.
export function toWatchModel(view: RunView, tail: WatchRead['tail'], now = Date.now(), live = false): WatchModel {
  const latest = new Map<string, Lane & { start: number }>();
  for (const task of view.tasks) {
    for (const a of task.attempts) {
      const worker = a.worker ?? a.stage;
      const start = a.startedAt ? Date.parse(a.startedAt) : now;
      const seen = latest.get(worker);
      if (seen && seen.start > start) continue;
      const end = a.finishedAt ? Date.parse(a.finishedAt) : now;
      latest.set(worker, { worker, task: task.id, attempt: a.attempt, stage: a.stage, status: a.status, elapsedMs: Math.max(0, end - start), lastLine: '', start });
    }
  }
  const lanes = [...latest.values()].sort((x, y) => x.worker.localeCompare(y.worker, undefined, { numeric: true }));
  for (const lane of lanes) lane.lastLine = tail(lane.task, lane.attempt);
  const ended = ENDED.has(view.status);
  const started = Date.parse(view.run.created_at);
  return {
    runId: view.run.run_id,
    mode: view.run.mode,
    task: view.run.task,
    status: view.status,
    stage: view.stage,
    iteration: view.pipeline.iteration,
    maxIterations: view.pipeline.maxIterations,
    loop: view.pipeline.loop,
    maxFixLoops: view.pipeline.maxFixLoops,
    costUsd: view.usage.run.costUsd,
    tokens: view.usage.run.tokens,
    elapsedMs: Math.max(0, now - started),
    lanes: lanes.map(({ start: _s, ...lane }) => lane),
    // A live run's writes in flight (temporary files) are not problems yet.
    attention: attentionLines(live ? { ...view, problems: view.problems.filter((p) => !p.reason.startsWith('stray temporary file')) } : view, live),
    outcome: view.outcome,
    ended,
  };
}

// The last non-empty line of a file, read from its tail, without control characters.
export function lastLine(file: string): string {
  let fd: number;
  try {
    fd = openRegularFile(file);
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.subarray(0, read).toString('utf8').split(/\r?\n|\r/);
    const last = lines.reverse().find((line) => stripVTControlCharacters(line).trim() !== '') ?? '';
    return stripVTControlCharacters(last).replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  } finally {
    closeSync(fd);
  }
}
