// What a recovered run must look like, each check returning its problems in words (empty: fine):
// the ledger (no attempt did its work twice), the log (nothing lost or doubled), the handoffs, the replay.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as HandoffsRead from '../../handoffs/read.js';
import type * as CheckpointRead from '../../src/log/read.js';
import type * as CheckpointStore from '../../src/log/write.js';
import type * as Replay from '../../src/session/replay.js';
import { importBuilt, type LedgerLine, type RecoveryProject } from './recovery-project.js';

type Event = Record<string, unknown> & { file: string };

const key = (task: unknown, attempt: unknown) => `${String(task)}#a${String(attempt)}`;

// Each expected task completed exactly once, and its completed attempt is the only one that did the work.
export function ledgerProblems(ledger: LedgerLine[], events: Event[], runId: string, expectedTasks: string[]): string[] {
  const problems: string[] = [];
  const lines = ledger.filter((line) => line.run === runId);
  const completed = events.filter((e) => e.event === 'task_finished' && e.status === 'completed');
  const completedKeys = new Set(completed.map((e) => key(e.task_id, e.attempt)));
  const perLine = new Map<string, number>();
  for (const line of lines) perLine.set(key(line.task, line.attempt), (perLine.get(key(line.task, line.attempt)) ?? 0) + 1);
  for (const [k, count] of perLine) if (count > 1) problems.push(`${k} did its work ${count} times (ledger lines)`);
  for (const task of expectedTasks) {
    const done = completed.filter((e) => e.task_id === task);
    if (done.length !== 1) problems.push(`${task} has ${done.length} completed attempts in the log, expected 1`);
    const fromCompleted = lines.filter((line) => line.task === task && completedKeys.has(key(line.task, line.attempt)));
    if (fromCompleted.length !== 1) problems.push(`${task} has ${fromCompleted.length} ledger lines from its completed attempt, expected 1`);
  }
  for (const line of lines) {
    if (!completedKeys.has(key(line.task, line.attempt))) problems.push(`${key(line.task, line.attempt)} did its work, but the log does not record it completed: work was repeated`);
  }
  const unexpected = [...new Set(completed.map((e) => String(e.task_id)))].filter((task) => !expectedTasks.includes(task));
  if (unexpected.length) problems.push(`unexpected completed tasks: ${unexpected.join(', ')}`);
  return problems;
}

// Every attempt started once, spawned at most once, ended exactly once; one end of the run.
export function logProblems(events: Event[]): string[] {
  const problems: string[] = [];
  const count = (name: string) => {
    const counts = new Map<string, number>();
    for (const e of events.filter((x) => x.event === name)) counts.set(key(e.task_id, e.attempt), (counts.get(key(e.task_id, e.attempt)) ?? 0) + 1);
    return counts;
  };
  const started = count('task_started');
  const spawned = count('attempt_spawned');
  const finished = count('task_finished');
  for (const [k, n] of started) {
    if (n !== 1) problems.push(`${k}: ${n} task_started events`);
    if ((finished.get(k) ?? 0) !== 1) problems.push(`${k}: ${finished.get(k) ?? 0} task_finished events, expected 1`);
  }
  for (const [k, n] of spawned) {
    if (n > 1) problems.push(`${k}: ${n} attempt_spawned events (the attempt was started again)`);
    if (!started.has(k)) problems.push(`${k}: attempt_spawned without task_started`);
  }
  for (const k of finished.keys()) if (!started.has(k)) problems.push(`${k}: task_finished without task_started`);
  const ends = events.filter((e) => ['run_completed', 'run_failed', 'run_cancelled'].includes(String(e.event)));
  if (ends.length !== 1) problems.push(`${ends.length} run end events (run_completed / run_failed / run_cancelled), expected 1`);
  return problems;
}

// Each handoff_written names a file that holds exactly what was recorded, in the handoff shape; the
// handoffs folder holds those and no other handoff, numbered 1..N in the expected stage order.
export async function handoffProblems(project: RecoveryProject, events: Event[], expectedStages: string[]): Promise<string[]> {
  const { readHandoffs, checkHandoffShape } = await importBuilt<typeof HandoffsRead>('handoffs/read.js');
  const problems: string[] = [];
  const written = events.filter((e) => e.event === 'handoff_written');
  for (const e of written) {
    const file = join(project.dir, String(e.path));
    if (!existsSync(file)) {
      problems.push(`${String(e.path)} is recorded but missing`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    if (createHash('sha256').update(text, 'utf8').digest('hex') !== e.sha256) problems.push(`${String(e.path)} differs from the sha256 its handoff_written recorded`);
    const shape = checkHandoffShape(text);
    if (shape) problems.push(`${String(e.path)}: ${shape}`);
  }
  const onDisk = readHandoffs(join(project.runDir(), 'handoffs'));
  const stages = onDisk.map((h) => h.stage);
  if (JSON.stringify(stages) !== JSON.stringify(expectedStages)) problems.push(`handoffs on disk are ${stages.join(', ')}; expected ${expectedStages.join(', ')}`);
  if (onDisk.some((h, i) => h.index !== i + 1)) problems.push(`handoff numbers are ${onDisk.map((h) => h.index).join(', ')}, not 1..${onDisk.length}`);
  const recorded = new Set(written.map((e) => String(e.path).split('/').at(-1)));
  for (const h of onDisk) if (!recorded.has(h.file.split('/').at(-1))) problems.push(`${h.file} is on disk but no handoff_written records it`);
  return problems;
}

// Folding the run's log through the machine reproduces its recorded state and outcome; throws a DeterminismError otherwise.
export async function replayOf(project: RecoveryProject): Promise<{ value: unknown; status: string; pending: unknown[] }> {
  const { replayRun } = await importBuilt<typeof Replay>('src/session/replay.js');
  const { readRunFiles } = await importBuilt<typeof CheckpointRead>('src/log/read.js');
  const { runPaths } = await importBuilt<typeof CheckpointStore>('src/log/write.js');
  const files = readRunFiles(runPaths(project.dir, project.runId()));
  const replay = replayRun(files.events);
  return { value: replay.snapshot.value, status: replay.snapshot.status, pending: replay.pending };
}

// A problem `team status --json` lists for the temporary file of a write cut short by a kill.
export function isStray(problem: { file: string; reason: string }): boolean {
  return problem.reason.startsWith('stray temporary file');
}
