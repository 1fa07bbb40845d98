// The checkpoint store against plain fs code of the same durability: writing events, and reading
// and folding a run. Each pair is measured in the same process, interleaved, on the same disk.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NewEvent } from '../src/log/schema.js';
import { readRunFiles } from '../src/log/read.js';
import { appendEvent, createRun, runPaths, type RunPaths } from '../src/log/write.js';
import { makeStamp, makeToken, nowIso } from '../src/log/time.js';
import { foldRun } from '../src/log/fold/fold.js';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';

const WRITE_EVENTS = 5_000;
const READ_EVENTS = 10_000;
// Interleaving in chunks spreads disk and CPU noise evenly over both sides.
const WRITE_CHUNK = 250;
const READ_ROUNDS = 11;
// Overhead allowed over the plain code: validation and naming must not dominate.
const TARGET = 1.5;

// Runs both store comparisons in a temporary folder (BENCH_DIR to pick the disk) and removes it.
export function benchStore(): Comparison[] {
  const root = makeScratchDir('teamline-bench-');
  return [benchWrite(root), benchRead(root)];
}

// appendEvent with fsync against open/write/fsync/rename/fsync-folder of the same bytes.
function benchWrite(root: string): Comparison {
  const store = makeRun(root, 'write');
  const plainDir = join(root, 'plain-write');
  mkdirSync(plainDir);
  const dirFd = openSync(plainDir, 'r');
  const events = makeEvents(WRITE_EVENTS);
  let storeMs = 0;
  let plainMs = 0;
  try {
    for (let from = 0; from < events.length; from += WRITE_CHUNK) {
      const chunk = events.slice(from, from + WRITE_CHUNK);
      let t = performance.now();
      for (const event of chunk) appendEvent(store.paths, store.runId, event, { fsync: true });
      storeMs += performance.now() - t;
      t = performance.now();
      for (const event of chunk) writePlain(plainDir, dirFd, event, store.runId);
      plainMs += performance.now() - t;
    }
  } finally {
    closeSync(dirFd);
  }
  return { name: 'store write', detail: `${WRITE_EVENTS} events, fsync`, ms: storeMs, baselineMs: plainMs, target: TARGET };
}

// The baseline write: the same JSON line, a temporary name, fsync, rename, fsync of the folder.
function writePlain(dir: string, dirFd: number, event: NewEvent, runId: string): void {
  const text = `${JSON.stringify({ ...event, at: nowIso(), run_id: runId })}\n`;
  const name = `${makeStamp()}-${event.event}-${makeToken()}.json`;
  const temp = join(dir, `.tmp-${name}`);
  const fd = openSync(temp, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(dir, name));
  fsyncSync(dirFd);
}

// readRunFiles + foldRun of a run against readdir + readFile + JSON.parse of the same files.
function benchRead(root: string): Comparison {
  const run = makeRun(root, 'read');
  for (const event of makeEvents(READ_EVENTS)) appendEvent(run.paths, run.runId, event, { fsync: false });
  // Warm both paths (page cache, JIT) before timing.
  const check = readAndFold(run.paths, root);
  if (check !== READ_EVENTS) throw new Error(`the fold saw ${check} events, not ${READ_EVENTS}`);
  readPlain(run.paths);
  const storeTimes: number[] = [];
  const plainTimes: number[] = [];
  for (let round = 0; round < READ_ROUNDS; round++) {
    let t = performance.now();
    readAndFold(run.paths, root);
    storeTimes.push(performance.now() - t);
    t = performance.now();
    readPlain(run.paths);
    plainTimes.push(performance.now() - t);
  }
  return { name: 'store read', detail: `${READ_EVENTS} events, read + fold, median of ${READ_ROUNDS}`, ms: median(storeTimes), baselineMs: median(plainTimes), target: TARGET };
}

function readAndFold(paths: RunPaths, projectDir: string): number {
  return foldRun(readRunFiles(paths), projectDir).eventCount;
}

// The baseline read: every file of the run parsed, nothing checked (also resume's baseline).
export function readPlain(paths: RunPaths): number {
  let count = 0;
  JSON.parse(readFileSync(paths.runJson, 'utf8'));
  for (const dir of [paths.eventsDir, paths.approvalsDir]) {
    for (const name of readdirSync(dir).sort()) {
      JSON.parse(readFileSync(join(dir, name), 'utf8'));
      count++;
    }
  }
  return count;
}

function makeRun(root: string, name: string): { runId: string; paths: RunPaths } {
  const dir = join(root, name);
  mkdirSync(dir);
  const { run_id } = createRun(dir, { profile: 'bench', stage: 'team-exec', status: 'running', session: '', parent_session: '', task: 'bench', workers: 4, agentType: 'executor', mode: 'team' }, { fsync: false });
  return { runId: run_id, paths: runPaths(dir, run_id) };
}

// A run's worth of events: per task a start, a spawn, a usage report and a finish, as a live run writes them.
function makeEvents(count: number): NewEvent[] {
  const events: NewEvent[] = [];
  for (let i = 0; events.length < count; i++) {
    const task_id = `t${i}`;
    const seed = { task_id, stage: 'team-exec', agent: 'sim', attempt: 1, session: 's1', parent_session: '', inputs: ['docs/plan.md'], next: '' };
    events.push({ event: 'task_started', ...seed, status: 'running', artifacts: [], evidence: '' });
    events.push({ event: 'attempt_spawned', task_id, attempt: 1, worker: `worker-${(i % 4) + 1}`, handle: { backend: 'process', pid: 1000 + i, pidStart: 42, pgid: 1000 + i } });
    events.push({ event: 'attempt_usage', task_id, attempt: 1, stage: 'team-exec', agent: 'sim', cost_usd: 0.01, tokens: { input: 1200, output: 300 } });
    events.push({ event: 'task_finished', ...seed, status: 'completed', artifacts: [`src/module-${i}.ts`], evidence: 'npm test: 42 passed, 0 failed; lint clean', next: 'none' });
  }
  return events.slice(0, count);
}
