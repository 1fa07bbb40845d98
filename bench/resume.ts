// Resume preparation of a long run (read, fold, replay through the machine, reconcile the uncertain
// attempts: what `team resume` does before driving) against the plain read of the same files, measured
// in the same process, interleaved; at several log sizes, so that growth worse than linear shows.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunPaths } from '../src/log/write.js';
import { foldOf, viewOf } from '../src/log/fold/fold.js';
import { readForReplay } from '../src/session/machine-snapshot.js';
import { replayRun } from '../src/session/replay.js';
import { isProcessAlive } from '../src/sys/proc.js';
import type { WorkerHandle } from '../workers/types.js';
import { growthRow, median, sizesFrom, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { writeRun } from './parts/resume-log.js';
import { readPlain } from './store.js';

// Log sizes (events); BENCH_RESUME_EVENTS="1000,10000" to change. The target row is 10,000.
const SIZES = sizesFrom('BENCH_RESUME_EVENTS', [1_000, 10_000, 100_000]);
// Workers of the generated run: this many attempts are left running, uncertain, to reconcile.
const WORKERS = 4;
// Up to ROUNDS interleaved rounds per size; past MIN_ROUNDS, no new round starts after BUDGET_MS.
const ROUNDS = Number(process.env.BENCH_RESUME_ROUNDS ?? 7);
const MIN_ROUNDS = 1;
const BUDGET_MS = 30_000;
// Resume of a log of this many events may cost at most TARGET times merely reading its files.
const TARGET_SIZE = 10_000;
const TARGET = 2;
// Time per event at the largest size over that at the smallest.
const GROWTH_TARGET = 1.5;

export interface ResumeParts {
  readMs: number;
  foldMs: number;
  replayMs: number;
  reconcileMs: number;
}

export interface ResumeSize {
  /** The log size asked for; `events` is what the generated log holds (a few fewer). */
  size: number;
  events: number;
  rounds: number;
  prepMs: number;
  plainMs: number;
  parts: ResumeParts;
}

// Every size's medians, and the rows: resume prep against the plain read per size, and the growth row.
export async function measureResume(): Promise<{ rows: Comparison[]; sizes: ResumeSize[] }> {
  const sizes: ResumeSize[] = [];
  for (const size of SIZES) sizes.push(measureSize(size));
  const rows: Comparison[] = sizes.map((s) => ({
    name: 'resume prep',
    detail: `${s.events} events, median of ${s.rounds}; read+fold+replay+reconcile`,
    ms: s.prepMs,
    baselineMs: s.plainMs,
    // The target is for 10,000 events; the other sizes show growth.
    ...(s.size === TARGET_SIZE && { target: TARGET }),
  }));
  if (sizes.length > 1) rows.push(growthRow('resume growth', 'event', sizes.map((s) => ({ size: s.events, ms: s.prepMs })), GROWTH_TARGET));
  return { rows, sizes };
}

// The comparisons alone, for bench/run.ts.
export async function benchResume(): Promise<Comparison[]> {
  return (await measureResume()).rows;
}

function measureSize(size: number): ResumeSize {
  const root = makeScratchDir('teamline-bench-resume-');
  const { paths, events } = writeRun(join(root, 'project'), size, WORKERS);
  // The files were just written (page cache warm); warm the plain path's JIT too.
  readPlain(paths);
  const prep: number[] = [];
  const plain: number[] = [];
  const parts: ResumeParts[] = [];
  const started = performance.now();
  for (let round = 0; round < ROUNDS && (round < MIN_ROUNDS || performance.now() - started < BUDGET_MS); round++) {
    const t = performance.now();
    readPlain(paths);
    plain.push(performance.now() - t);
    const prepared = prepareResume(paths);
    if (prepared.events !== events || prepared.uncertain !== WORKERS) throw new Error(`the prepared resume saw ${prepared.events} events and ${prepared.uncertain} uncertain attempts, not ${events} and ${WORKERS}`);
    prep.push(prepared.ms);
    parts.push(prepared.parts);
  }
  const mid = (pick: (p: ResumeParts) => number) => median(parts.map(pick));
  return {
    size,
    events,
    rounds: prep.length,
    prepMs: median(prep),
    plainMs: median(plain),
    parts: { readMs: mid((p) => p.readMs), foldMs: mid((p) => p.foldMs), replayMs: mid((p) => p.replayMs), reconcileMs: mid((p) => p.reconcileMs) },
  };
}

// What a new orchestrator does before driving again (takeOver, without the lock): one read (with the
// machine snapshot's check) and fold, the replay through the machine from that snapshot when it
// holds, and whether each uncertain attempt's recorded worker still runs.
function prepareResume(paths: RunPaths): { ms: number; events: number; uncertain: number; parts: ResumeParts } {
  const begin = performance.now();
  let t = begin;
  const { files, snapshot } = readForReplay(paths);
  const readMs = performance.now() - t;
  t = performance.now();
  const st = foldOf(files.run, files.events);
  const view = viewOf(st, files, paths.projectDir);
  const foldMs = performance.now() - t;
  t = performance.now();
  const replay = replayRun(files.events, snapshot);
  const replayMs = performance.now() - t;
  if (replay.pending.length > 0 || !replay.snapshot.matches({ exec: 'working' })) throw new Error('the replay did not stop in team-exec with nothing pending');
  t = performance.now();
  const handles = new Map(st.handles as Map<string, WorkerHandle>);
  for (const { task, attempt } of view.uncertain) {
    const handle = handles.get(`${task}#${attempt}`);
    if (handle) isProcessAlive(handle.pid, handle.pidStart);
  }
  const reconcileMs = performance.now() - t;
  return { ms: performance.now() - begin, events: files.events.length, uncertain: view.uncertain.length, parts: { readMs, foldMs, replayMs, reconcileMs } };
}
