// The one-screen summary `team wait` prints at its timeout (or at a question to the lead): where the run stands and what changed
// since the previous wait (remembered in the run folder, outside the log).
import { join } from 'node:path';
import { spendLines } from '../status/spend.js';
import { writeFileAtomic } from '../../sys/atomic.js';
import { readRegularFile } from '../../sys/regular-file.js';
import type { RunView } from '../../log/fold/fold.js';
import { attentionLines } from '../status/render.js';
import { teamLines } from '../team-lines.js';
import { runSeconds } from '../../log/fold/clock.js';

// What the previous `team wait` saw; not an event, never read by the pipeline.
export const WAIT_MARK_FILE = 'wait-mark.json';
// A mark names each task's status once: room for many thousands of tasks.
const MARK_BYTES = 4 * 1024 * 1024;

interface WaitMark {
  at: string;
  stage: string;
  tasks: Record<string, string>;
  costUsd: number;
}

// Lines of the summary, and the mark is moved to now. `before`: the view where the previous wait
// left the log (its --since), which the changes are told from instead of the mark. `round`: this
// wait's --round; the next command counts it up, so that it never repeats the last one even when
// the log did not grow (Gemini CLI ends a session at the fifth call like the ones before).
// `timeoutS`: the wait's --timeout, which the next command repeats; `waitedS`: how long it waited.
export function summarizeProgress(view: RunView, runDir: string, timeoutS: number, { before, round = 1, waitedS = timeoutS }: { before?: RunView; round?: number; waitedS?: number } = {}): string[] {
  const previous = before ? { ...markOf(before), at: `event ${before.eventCount}` } : readMark(runDir);
  // The plan's tasks, as `team watch` counts them (not the planner's, analyst's or verifier's attempts).
  const planned = view.current.size ? view.tasks.filter((t) => view.current.has(t.id)) : view.tasks;
  const count = (status: string) => planned.filter((t) => t.status === status).length;
  const { pipeline, run } = view;
  const where = [`stage ${view.stage}`];
  if (pipeline.maxFixLoops !== undefined) where.push(`fix loop ${pipeline.loop} of ${pipeline.maxFixLoops}`);
  if (pipeline.maxIterations !== undefined) where.push(`iteration ${pipeline.iteration} of ${pipeline.maxIterations}`);
  const minutes = (runSeconds(view) / 60).toFixed(1);
  const lines = [
    `run ${run.run_id} is still ${view.status} after ${waitedS}s of waiting (${minutes} min since it started)`,
    `  ${where.join(' · ')}`,
    `  tasks: ${count('completed')} done, ${count('running')} running, ${count('failed')} failed, ${count('pending')} pending (of ${planned.length})`,
    `  cost $${view.usage.run.costUsd.toFixed(4)}`,
    ...spendLines(view.spend, Date.now()).map((line) => `  ${line}`),
  ];
  const changes = changesSince(view, previous);
  lines.push(previous ? `  since the last wait (${previous.at}): ${changes.length ? changes.join('; ') : 'no change'}` : `  so far: ${changes.length ? changes.join('; ') : 'nothing finished yet'}`);
  const team = teamLines(view);
  if (team.length) lines.push('  team:', ...team.slice(-6).map((line) => `    ${line}`));
  // Summed up while an orchestrator drives the run (a wait ends when none does).
  const attention = attentionLines(view, true);
  lines.push(attention.length ? '  needs attention:' : '  needs attention: nothing');
  lines.push(...attention.slice(0, 6).map((line) => `    ${line}`));
  if (attention.length > 6) lines.push(`    … ${attention.length - 6} more: \`team status --run ${run.run_id}\``);
  lines.push(`  next: team wait --run ${run.run_id} --since ${view.eventCount} --round ${round + 1} --timeout ${timeoutS} (it prints "still running" again while the run goes on)`);
  writeMark(runDir, view);
  return lines;
}

function changesSince(view: RunView, previous: WaitMark | undefined): string[] {
  const changes: string[] = [];
  if (previous && previous.stage !== view.stage) changes.push(`stage ${previous.stage} → ${view.stage}`);
  const byStatus = new Map<string, string[]>();
  for (const task of view.tasks) {
    if (task.status === 'pending' || previous?.tasks[task.id] === task.status) continue;
    byStatus.set(task.status, [...(byStatus.get(task.status) ?? []), task.id]);
  }
  for (const [status, ids] of byStatus) changes.push(`${status}: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ` and ${ids.length - 8} more` : ''}`);
  const spent = view.usage.run.costUsd - (previous?.costUsd ?? 0);
  if (spent > 0) changes.push(`$${spent.toFixed(4)} spent`);
  return changes;
}

// The mark, read as a file a worker could have replaced (a FIFO is refused at once, never waited on).
function readMark(runDir: string): WaitMark | undefined {
  const reading = readRegularFile(join(runDir, WAIT_MARK_FILE), MARK_BYTES);
  if (!reading.ok) return undefined;
  try {
    return JSON.parse(reading.text) as WaitMark;
  } catch {
    return undefined;
  }
}

function markOf(view: RunView): WaitMark {
  return { at: new Date().toISOString(), stage: view.stage, tasks: Object.fromEntries(view.tasks.map((t) => [t.id, t.status])), costUsd: view.usage.run.costUsd };
}

function writeMark(runDir: string, view: RunView): void {
  const mark = markOf(view);
  writeFileAtomic(runDir, WAIT_MARK_FILE, `${JSON.stringify(mark)}\n`, { fsync: false });
}
