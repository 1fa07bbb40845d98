// Resume preparation of a long run (read, fold, replay through the machine, reconcile the uncertain
// attempts) against the plain read of the same files, measured in the same process, interleaved.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readRunFiles } from '../src/checkpoint/read.js';
import type { RunPaths } from '../src/checkpoint/store.js';
import { foldRun } from '../src/checkpoint/view.js';
import { replayRun } from '../src/runtime/replay.js';
import { isProcessAlive } from '../workers/proc.js';
import type { WorkerHandle } from '../workers/types.js';
import { median, type Comparison } from './compare.js';
import { writeRun } from './resume-log.js';
import { readPlain } from './store.js';

// The log: about 10,000 events, a run stopped in the middle of team-exec.
const EVENTS = 10_000;
// Workers of the generated run: this many attempts are left running, uncertain, to reconcile.
const WORKERS = 4;
// Up to ROUNDS interleaved rounds; past MIN_ROUNDS, no new round starts after BUDGET_MS.
const ROUNDS = 11;
const MIN_ROUNDS = 3;
const BUDGET_MS = 60_000;
// Resume may cost at most this much over merely reading the files.
const TARGET = 2;

export interface ResumeParts {
  readMs: number;
  foldMs: number;
  replayMs: number;
  reconcileMs: number;
}

// The comparisons (takeover preparation, and the resume command's whole read path) and a breakdown.
export async function measureResume(): Promise<{ rows: Comparison[]; parts: ResumeParts; events: number }> {
  const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'teamline-bench-resume-'));
  try {
    const { paths, events } = writeRun(join(root, 'project'), EVENTS, WORKERS);
    // The files were just written (page cache warm); warm the plain path's JIT too.
    readPlain(paths);
    const prep: number[] = [];
    const command: number[] = [];
    const plain: number[] = [];
    const parts: ResumeParts[] = [];
    const started = performance.now();
    for (let round = 0; round < ROUNDS && (round < MIN_ROUNDS || performance.now() - started < BUDGET_MS); round++) {
      let t = performance.now();
      const prepared = prepareResume(paths);
      const prepMs = performance.now() - t;
      if (prepared.events !== events || prepared.uncertain !== WORKERS) throw new Error(`the prepared resume saw ${prepared.events} events and ${prepared.uncertain} uncertain attempts, not ${events} and ${WORKERS}`);
      prep.push(prepMs);
      parts.push(prepared.parts);
      t = performance.now();
      readPlain(paths);
      plain.push(performance.now() - t);
      // `team resume` first folds the run to refuse an ended one, then takes it over: one more read and fold.
      t = performance.now();
      foldRun(readRunFiles(paths), paths.projectDir);
      command.push(prepMs + performance.now() - t);
    }
    const baselineMs = median(plain);
    const detail = `${events} events, median of ${prep.length}`;
    return {
      rows: [
        { name: 'resume prep', detail: `${detail}; read+fold+replay+reconcile`, ms: median(prep), baselineMs, target: TARGET },
        { name: 'resume cmd', detail: `${detail}; as team resume: 2 reads+folds`, ms: median(command), baselineMs, target: TARGET },
      ],
      parts: {
        readMs: median(parts.map((p) => p.readMs)),
        foldMs: median(parts.map((p) => p.foldMs)),
        replayMs: median(parts.map((p) => p.replayMs)),
        reconcileMs: median(parts.map((p) => p.reconcileMs)),
      },
      events,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// The comparisons alone, for bench/run.ts.
export async function benchResume(): Promise<Comparison[]> {
  return (await measureResume()).rows;
}

// What a new orchestrator does before driving again (takeOver, without the lock): read, fold,
// replay through the machine, and ask whether each uncertain attempt's recorded worker still runs.
function prepareResume(paths: RunPaths): { events: number; uncertain: number; parts: ResumeParts } {
  let t = performance.now();
  const files = readRunFiles(paths);
  const readMs = performance.now() - t;
  t = performance.now();
  const view = foldRun(files, paths.projectDir);
  const foldMs = performance.now() - t;
  t = performance.now();
  const replay = replayRun(files.events);
  const replayMs = performance.now() - t;
  if (replay.pending.length > 0 || !replay.snapshot.matches({ exec: 'working' })) throw new Error('the replay did not stop in team-exec with nothing pending');
  t = performance.now();
  const handles = new Map<string, WorkerHandle>();
  for (const event of files.events) if (event.event === 'attempt_spawned') handles.set(`${event.task_id}#${event.attempt}`, event.handle as WorkerHandle);
  for (const { task, attempt } of view.uncertain) {
    const handle = handles.get(`${task}#${attempt}`);
    if (handle) isProcessAlive(handle.pid, handle.pidStart);
  }
  const reconcileMs = performance.now() - t;
  return { events: files.events.length, uncertain: view.uncertain.length, parts: { readMs, foldMs, replayMs, reconcileMs } };
}

