// Runs made in-process through the store, and in-memory run files, for unit tests of reading and folding.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFiles } from '../../src/log/read.js';
import { createRun, runPaths, type RunPaths, type RunRecord } from '../../src/log/write.js';

export const RUN_FIELDS: Omit<RunRecord, 'run_id' | 'created_at'> = {
  profile: 'p',
  stage: 'team-plan',
  status: 'running',
  session: '',
  parent_session: '',
  task: 'add validation',
  workers: 2,
  agentType: 'executor',
  mode: 'team',
};

export const RUN_ID = '20261028T131016577943Z-20fe61';

const made: string[] = [];

// A temporary project folder holding one new run (fsync off: tests need no durability); removed by `removeRuns`.
export function makeRun(): { dir: string; runId: string; paths: RunPaths } {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-run-'));
  made.push(dir);
  const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
  return { dir, runId: run_id, paths: runPaths(dir, run_id) };
}

// Removes every folder `makeRun` made; call it in afterEach.
export function removeRuns(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// Run files as the reader would return them, from events given without at, run_id and file.
export function makeRunFiles(events: Array<Record<string, unknown>>, rest: Partial<Omit<RunFiles, 'events'>> = {}): RunFiles {
  let n = 0;
  const full = events.map((event) => ({
    at: `2026-10-28T13:10:${String(10 + (n % 50)).padStart(2, '0')}.000Z`,
    run_id: RUN_ID,
    file: `20261028T1310${String(n).padStart(8, '0')}Z-${String(event.event)}-${String(event.task_id ?? 'run')}-a${String(event.attempt ?? 0)}-${String(n++).padStart(6, '0')}.json`,
    ...event,
  })) as unknown as RunFiles['events'];
  return {
    run: { run_id: RUN_ID, created_at: '2026-10-28T13:10:16.577Z', ...RUN_FIELDS },
    events: full,
    approvals: [],
    problems: [],
    ...rest,
  };
}

// The seed's task event fields for task `task_id` attempt `attempt`, with `fields` on top.
export function taskFields(task_id: string, attempt: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { task_id, attempt, stage: 'team-exec', agent: 'sim', session: '', parent_session: '', inputs: [], artifacts: [], evidence: '', next: '', ...fields };
}

export const started = (task: string, attempt = 1, fields: Record<string, unknown> = {}) => ({ event: 'task_started', ...taskFields(task, attempt), status: 'running', ...fields });
export const finished = (task: string, attempt: number, status: string, fields: Record<string, unknown> = {}) => ({ event: 'task_finished', ...taskFields(task, attempt), status, ...fields });
